#pragma once
// TextureSampler: filtered lookups in one tiled image through a TileReader. Coordinates are OIIO's
// (and GL's): s, t in [0, 1] across the image, pixel centres at (i + 0.5) / size, t down the rows.
// Results are RGBA floats in [0, 1] (8-bit values / 255).
//
// - nearest / bilinear on one level;
// - trilinear from a level of detail (level = floor(lod), blended with the next by the fraction);
// - trilinear from screen-space derivatives, choosing and blending levels as OIIO's TextureSystem
//   does with its default (conservative) filter: width = the larger of max(|ds/dx|, |ds/dy|) and
//   max(|dt/dx|, |dt/dy|), in texels of level m: width * min(level width, level height); the first
//   level m where that is <= 1 is blended with level m - 1 by clamp(2 * texels - 1, 0, 1)
//   (OIIO 2.4, measured against its TextureSystem in the tests).
// Wrap modes apply per axis to texel indices (default: the file's `wrapmodes`): black (0 outside),
// clamp, periodic, mirror.
//
// Thread-safety: a sampler is owned by one thread (it holds that thread's TileReader).

#include <array>
#include <memory>
#include <optional>

#include "kiln/textures/tile_cache.h"

namespace kiln::textures {

using Color = std::array<float, 4>;

struct SamplerOptions {
  std::optional<WrapMode> wrap_s, wrap_t;  // unset: the file's
};

class TextureSampler {
 public:
  TextureSampler(TileCache& cache, std::shared_ptr<TiledImage> image, SamplerOptions options = {});

  Result<Color> nearest(float s, float t, std::size_t level = 0);
  Result<Color> bilinear(float s, float t, std::size_t level = 0);
  Result<Color> trilinear(float s, float t, float lod);
  Result<Color> trilinear(float s, float t, float dsdx, float dtdx, float dsdy, float dtdy);

  // Texel (x, y) of `level` after wrapping, as 0..255 values.
  Result<std::array<std::uint8_t, 4>> texel(std::size_t level, int x, int y);
  TileReader& reader() { return reader_; }

 private:
  TileReader reader_;
  WrapMode wrap_s_, wrap_t_;
};

}  // namespace kiln::textures
