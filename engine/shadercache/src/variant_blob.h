#pragma once
// A CompiledVariant as stored in the BlobStore: CBOR (nlohmann) with the SPIR-V as binary.
// IMPORTANT: bump kVariantBlobFormat with any change; it is part of the namespace identity.

#include <optional>
#include <string>

#include "kiln/cache/blob_store.h"
#include "kiln/shadercache/variant_cache.h"

namespace kiln::shadercache {

inline constexpr int kVariantBlobFormat = 2;

cache::Bytes encode_variant(const CompiledVariant& variant);
// Nothing if the bytes are not a variant of this format (the caller counts it and recompiles).
std::optional<CompiledVariant> decode_variant(const cache::Bytes& bytes);

}  // namespace kiln::shadercache
