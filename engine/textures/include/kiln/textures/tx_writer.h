#pragma once
// Writes .tx files the way maketx does, so that OIIO, RenderMan-style renderers and Kiln's own
// reader all take them: a tiled TIFF, one directory per mip level (maketx's floor-halving chain down
// to 1x1, box filtered in linear light with premultiplied alpha: mip_chain.h), zip compressed, 8 bits
// per channel with the source's channels, colour premultiplied (ExtraSamples "associated alpha"), the
// `wrapmodes` and `textureformat` tags, and in ImageDescription oiio:AverageColor, oiio:SHA-1 (of
// level 0 as stored), oiio:ColorSpace, kiln:NormalMap for a normal map and, for a single-colour
// image, oiio:ConstantColor. Nothing time- or path-dependent goes into the file: the same pixels and
// settings make the same bytes. Written through a temp file and a rename.
//
// Thread-safety: free functions, no shared state; concurrent writers of one path each leave a whole file.

#include <cstdint>
#include <filesystem>

#include "kiln/core/result.h"
#include "kiln/textures/image.h"
#include "kiln/textures/texture_settings.h"
#include "kiln/textures/tx_file.h"

namespace kiln::textures {

struct TxWriteOptions {
  std::uint32_t tile_size = 64;                                 // a multiple of 16 (TIFF's rule)
  WrapMode wrap_s = WrapMode::Black, wrap_t = WrapMode::Black;  // maketx's default
  TextureSettings settings;                                     // 8-bit colour is sRGB unless told
};

Status write_tx(const Image& image, const std::filesystem::path& path, const TxWriteOptions& options = {});

// read_image(source) then write_tx(): the cook's and the plain-image path's conversion.
Status convert_to_tx(const std::filesystem::path& source, const std::filesystem::path& tx,
                     const TxWriteOptions& options = {});

}  // namespace kiln::textures
