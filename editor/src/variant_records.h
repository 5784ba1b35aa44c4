#pragma once
// A compiled variant as the shaders pack stores it: what the cook writes and the editor's previews
// render from.

#include "kiln/runtime/variant_record.h"
#include "kiln/shadercache/variant_cache.h"

namespace kiln::cli {

runtime::VariantRecord variant_record(const shadercache::CompiledVariant& variant);
// The encoded record of `variant`, written from its stages' stored reflection text.
std::vector<std::byte> encode_variant_record(const shadercache::CompiledVariant& variant);

}  // namespace kiln::cli
