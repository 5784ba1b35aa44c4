#pragma once
// Compressed textures as files other tools read: DDS (every BC format, all mip levels; DX10 header
// for BC7 and the sRGB formats, which OpenImageIO, DirectXTex and most engines read) and ARM's .astc
// (one level, what `astcenc -dl` decodes). Written through a temp file and a rename.
//
// Thread-safety: free functions, no shared state.

#include <cstddef>
#include <filesystem>

#include "kiln/core/result.h"
#include "kiln/textures/compressed_texture.h"

namespace kiln::texture_codecs {

// A BC texture as DDS; ASTC is refused (DDS has no ASTC format other tools read).
Status write_dds(const textures::CompressedTexture& texture, const std::filesystem::path& path);
// One level of an ASTC texture as an .astc file.
Status write_astc_file(const textures::CompressedTexture& texture, std::size_t level,
                       const std::filesystem::path& path);

}  // namespace kiln::texture_codecs
