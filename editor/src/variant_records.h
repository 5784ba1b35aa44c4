#pragma once
// A compiled variant as the shaders pack stores it: what the cook writes and the editor's previews
// render from.

#include "kiln/runtime/variant_record.h"
#include "kiln/shadercache/variant_cache.h"

namespace kiln::cli {

runtime::VariantRecord variant_record(const shadercache::CompiledVariant& variant);

}  // namespace kiln::cli
