#pragma once
// Writes .tx files the way maketx does, so that OIIO, RenderMan-style renderers and Kiln's own
// reader all take them: a tiled TIFF, one directory per mip level (maketx's floor-halving chain down
// to 1x1, box filtered in linear light with premultiplied alpha: mip_chain.h), zip compressed (or
// zstd, or raw: the settings' compression), 8 bits
// per channel with the source's channels (an HDR source, Image::hdr: 16-bit half floats, linear,
// its mip chain filtered in floats), colour premultiplied (ExtraSamples "associated alpha"), the
// `wrapmodes` and `textureformat` tags, and in ImageDescription oiio:AverageColor, oiio:SHA-1 (of
// level 0 as stored), oiio:ColorSpace, kiln:NormalMap=1 and kiln:Filter=nearest when so and, for a
// single-colour image, oiio:ConstantColor. Nothing time- or path-dependent goes into the file: the same pixels and
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
  std::uint32_t tile_size = 64;  // a multiple of 16 (TIFF's rule)
  TextureSettings settings;      // colour space, normal map, wrap, filter, compression: followed and recorded
};

Status write_tx(const Image& image, const std::filesystem::path& path, const TxWriteOptions& options = {});

// read_image(source) then write_tx(): the cook's and the plain-image path's conversion. A colour space
// left to the source (settings.source_color_space) is the one it declares, else settings.color_space.
Status convert_to_tx(const std::filesystem::path& source, const std::filesystem::path& tx,
                     const TxWriteOptions& options = {});

}  // namespace kiln::textures
