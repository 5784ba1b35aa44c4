#pragma once
// The mip chain the .tx writer stores: maketx's floor-halving sizes down to 1x1, each level the
// area-weighted (box) average of the level above, with colour as every consumer of the tile cache
// expects it: premultiplied by alpha in the stored encoding (associated alpha, as maketx writes).
//
// Filtering happens on premultiplied linear values, carried in floats from level to level (a cut-out's
// transparent texels, whatever their colour, weigh nothing: no dark fringe): sRGB colour is decoded
// to linear light, filtered and encoded back; a normal map is filtered as vectors and renormalised on
// every level. Level 0 is the source itself, premultiplied.
//
// Thread-safety: a free function, no shared state.

#include <vector>

#include "kiln/textures/image.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::textures {

std::vector<Image> build_mip_chain(const Image& source, const TextureSettings& settings);

// An HDR level: premultiplied linear values, channels as the source has them.
struct FloatLevel {
  std::uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<float> values;
};
// The same chain for an HDR source (source.hdr), kept in floats: colour is linear already, so it is
// only premultiplied and box filtered (a normal map renormalised).
std::vector<FloatLevel> build_float_mip_chain(const Image& source, const TextureSettings& settings);

}  // namespace kiln::textures
