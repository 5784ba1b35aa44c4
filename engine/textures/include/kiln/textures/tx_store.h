#pragma once
// Textures converted to .tx, kept as the "textures" kind of the cache store (kiln/cache): the
// editor's and the tools' plain images (keyed by the source file's identity) and the cook's
// conversions (keyed by the source's bytes) live in two namespaces of one build of the converter.
// An entry's payload is the .tx file; tiles stream from the entry file after its header.
//
// Thread-safety: free functions; the store's own rules apply.

#include <cstddef>
#include <filesystem>
#include <vector>

#include "kiln/cache/blob_store.h"
#include "kiln/core/result.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::textures {

enum class TxKeying { kFileIdentity, kContent };

// The namespace of converted textures for one way of keying them.
Result<cache::BlobNamespace> open_tx_namespace(cache::BlobStore& store, TxKeying keying);
// The namespace of .tx files encoded for the GPU (block-compressed records), keyed by the .tx's
// bytes and the encoding's settings, in the same build as the conversions; `encoders` names the
// encoders' versions (another version, another namespace).
Result<cache::BlobNamespace> open_encoding_namespace(cache::BlobStore& store, const std::string& encoders);

// Converts `source` (PNG, TIFF, ...) to .tx bytes through `temp_file` (BlobStore::temp_path, or a
// private temp file without a store), which is removed.
Result<std::vector<std::byte>> convert_to_tx_bytes(const std::filesystem::path& source,
                                                   const std::filesystem::path& temp_file,
                                                   const TextureSettings& settings);

}  // namespace kiln::textures
