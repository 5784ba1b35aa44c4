#include "kiln/textures/sampler.h"

#include <algorithm>
#include <cmath>

namespace kiln::textures {
namespace {

// The texel index `i` of an axis `size` long, or -1 when the mode reads black there.
int wrap(int i, int size, WrapMode mode) {
  if (i >= 0 && i < size) return i;
  switch (mode) {
    case WrapMode::Black: return -1;
    case WrapMode::Clamp: return std::clamp(i, 0, size - 1);
    case WrapMode::Periodic: {
      const int m = i % size;
      return m < 0 ? m + size : m;
    }
    case WrapMode::Mirror: {
      const int period = 2 * size;
      int m = i % period;
      if (m < 0) m += period;
      return m < size ? m : period - 1 - m;
    }
  }
  return -1;
}

Color lerp(const Color& a, const Color& b, float w) {
  return {a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w, a[2] + (b[2] - a[2]) * w, a[3] + (b[3] - a[3]) * w};
}

}  // namespace

TextureSampler::TextureSampler(TileCache& cache, std::shared_ptr<TiledImage> image, SamplerOptions options)
    : reader_(cache, image),
      wrap_s_(options.wrap_s.value_or(image->info().wrap_s)),
      wrap_t_(options.wrap_t.value_or(image->info().wrap_t)) {}

Result<std::array<std::uint8_t, 4>> TextureSampler::texel(std::size_t level, int x, int y) {
  const auto& levels = reader_.image().info().levels;
  if (level >= levels.size()) level = levels.size() - 1;
  const TxLevel& l = levels[level];
  const int wx = wrap(x, int(l.width), wrap_s_), wy = wrap(y, int(l.height), wrap_t_);
  if (wx < 0 || wy < 0) return std::array<std::uint8_t, 4>{0, 0, 0, 0};
  auto tile = reader_.tile(level, std::uint32_t(wx) / l.tile_width, std::uint32_t(wy) / l.tile_height);
  if (!tile) return tile.error();
  const std::uint8_t* p = (*tile)->texel(std::uint32_t(wx) % l.tile_width, std::uint32_t(wy) % l.tile_height);
  return std::array<std::uint8_t, 4>{p[0], p[1], p[2], p[3]};
}

Result<Color> TextureSampler::nearest(float s, float t, std::size_t level) {
  const auto& levels = reader_.image().info().levels;
  const TxLevel& l = levels[std::min(level, levels.size() - 1)];
  auto v = texel(level, int(std::floor(s * float(l.width))), int(std::floor(t * float(l.height))));
  if (!v) return v.error();
  return Color{(*v)[0] / 255.0f, (*v)[1] / 255.0f, (*v)[2] / 255.0f, (*v)[3] / 255.0f};
}

Result<Color> TextureSampler::bilinear(float s, float t, std::size_t level) {
  const auto& levels = reader_.image().info().levels;
  level = std::min(level, levels.size() - 1);
  const TxLevel& l = levels[level];
  const float x = s * float(l.width) - 0.5f, y = t * float(l.height) - 0.5f;
  const float fx = std::floor(x), fy = std::floor(y);
  const float wx = x - fx, wy = y - fy;
  const int x0 = int(fx), y0 = int(fy);
  Color sum{0, 0, 0, 0};
  const float weights[4] = {(1 - wx) * (1 - wy), wx * (1 - wy), (1 - wx) * wy, wx * wy};
  // Most footprints lie inside one tile: one tile lookup, no wrapping.
  if (x0 >= 0 && y0 >= 0 && x0 + 1 < int(l.width) && y0 + 1 < int(l.height) &&
      std::uint32_t(x0) / l.tile_width == std::uint32_t(x0 + 1) / l.tile_width &&
      std::uint32_t(y0) / l.tile_height == std::uint32_t(y0 + 1) / l.tile_height) {
    auto tile = reader_.tile(level, std::uint32_t(x0) / l.tile_width, std::uint32_t(y0) / l.tile_height);
    if (!tile) return tile.error();
    const std::uint32_t tx = std::uint32_t(x0) % l.tile_width, ty = std::uint32_t(y0) % l.tile_height;
    const std::uint8_t* texels[4] = {(*tile)->texel(tx, ty), (*tile)->texel(tx + 1, ty), (*tile)->texel(tx, ty + 1),
                                     (*tile)->texel(tx + 1, ty + 1)};
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 4; ++c) sum[c] += weights[k] * texels[k][c];
    for (float& c : sum) c /= 255.0f;
    return sum;
  }
  for (int k = 0; k < 4; ++k) {
    if (weights[k] == 0.0f) continue;
    auto v = texel(level, x0 + (k & 1), y0 + (k >> 1));
    if (!v) return v.error();
    for (int c = 0; c < 4; ++c) sum[c] += weights[k] * (*v)[c];
  }
  for (float& c : sum) c /= 255.0f;
  return sum;
}

Result<Color> TextureSampler::trilinear(float s, float t, float lod) {
  const std::size_t last = reader_.image().info().levels.size() - 1;
  if (!(lod > 0)) return bilinear(s, t, 0);
  if (lod >= float(last)) return bilinear(s, t, last);
  const auto level = std::size_t(lod);
  const float blend = lod - float(level);
  auto a = bilinear(s, t, level);
  if (!a || blend == 0.0f) return a;
  auto b = bilinear(s, t, level + 1);
  if (!b) return b.error();
  return lerp(*a, *b, blend);
}

Result<Color> TextureSampler::trilinear(float s, float t, float dsdx, float dtdx, float dsdy, float dtdy) {
  const float width = std::max(std::max(std::fabs(dsdx), std::fabs(dsdy)), std::max(std::fabs(dtdx), std::fabs(dtdy)));
  const auto& levels = reader_.image().info().levels;
  for (std::size_t m = 0; m < levels.size(); ++m) {
    const float width_in_texels = float(std::min(levels[m].width, levels[m].height)) * width;
    if (width_in_texels <= 1) {
      if (m == 0) return bilinear(s, t, 0);  // magnified: the finest level
      const float blend = std::clamp(2.0f * width_in_texels - 1.0f, 0.0f, 1.0f);
      auto fine = bilinear(s, t, m - 1);
      if (!fine || blend == 0.0f) return fine;
      auto coarse = bilinear(s, t, m);
      if (!coarse) return coarse.error();
      return lerp(*fine, *coarse, blend);
    }
  }
  return bilinear(s, t, levels.size() - 1);  // wider than the whole image: the coarsest level
}

}  // namespace kiln::textures
