#include "kiln/textures/thumbnail.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kiln/core/input_limits.h"

namespace kiln::textures {
namespace {

std::uint8_t to_unit8(float v) { return !(v > 0) ? 0 : v >= 1 ? 255 : std::uint8_t(v * 255.0f + 0.5f); }  // NaN: 0

}  // namespace

std::size_t thumbnail_level(const TxInfo& info, std::uint32_t size) {
  std::size_t best = 0;
  for (std::size_t l = 0; l < info.levels.size(); ++l) {
    if (std::max(info.levels[l].width, info.levels[l].height) >= size) best = l;
  }
  return best;
}

Result<Image> read_level(TileCache& cache, const std::shared_ptr<TiledImage>& image, std::size_t level) {
  const auto& levels = image->info().levels;
  if (level >= levels.size())
    return make_error(image->path().string() + ": no level " + std::to_string(level) + " (the file has " +
                      std::to_string(levels.size()) + ")");
  const TxLevel& l = levels[level];
  // Decoded whole as RGBA8: within the limit for whole images and within the cache's budget, which
  // is what the user gave textures.
  const std::uint64_t bytes = std::uint64_t(l.width) * l.height * 4;
  const std::uint64_t allowed = std::min<std::uint64_t>(limits::kDecodedImageBytes, cache.budget_bytes());
  if (bytes > allowed)
    return make_error(image->path().string() + ": level " + std::to_string(level) + " is " + std::to_string(l.width) +
                      "x" + std::to_string(l.height) + " (" + describe_bytes(bytes) + " as RGBA8), more than the " +
                      describe_bytes(allowed) + " a whole level may take (textures.memory_max); read a smaller level");
  Image out{l.width, l.height, 4, std::vector<std::uint8_t>(std::size_t(l.width) * l.height * 4)};
  TileReader reader(cache, image);
  for (std::uint32_t ty = 0; ty < l.tiles_y(); ++ty) {
    for (std::uint32_t tx = 0; tx < l.tiles_x(); ++tx) {
      auto tile = reader.tile(level, tx, ty);
      if (!tile) return tile.error();
      const std::uint32_t x0 = tx * l.tile_width, y0 = ty * l.tile_height;
      const std::uint32_t w = std::min(l.tile_width, l.width - x0), h = std::min(l.tile_height, l.height - y0);
      for (std::uint32_t y = 0; y < h; ++y)
        std::copy_n((*tile)->texel(0, y), std::size_t(w) * 4, &out.pixels[(std::size_t(y0 + y) * l.width + x0) * 4]);
    }
  }
  return out;
}

namespace {

// Level `level` of `file`, straight, into 4-channel pixels of `Sample` (8 or 16 bits).
template <class Picture>
Result<Picture> export_pixels(TxFile& file, std::size_t level, std::uint64_t budget_bytes, bool round_float_to_8) {
  using Sample = typename decltype(Picture::pixels)::value_type;
  constexpr float kMax = float(std::numeric_limits<Sample>::max());
  const auto to_sample = [](float v) {
    return !(v > 0) ? Sample(0) : v >= 1 ? Sample(kMax) : Sample(v * kMax + 0.5f);  // NaN: 0
  };
  const TxInfo& info = file.info();
  if (level >= info.levels.size())
    return make_error(file.path().string() + ": no level " + std::to_string(level) + " (the file has " +
                      std::to_string(info.levels.size()) + ")");
  const TxLevel& l = info.levels[level];
  const std::uint64_t bytes = std::uint64_t(l.width) * l.height * 4 * sizeof(Sample);
  const std::uint64_t allowed = std::min<std::uint64_t>(limits::kDecodedImageBytes, budget_bytes);
  if (bytes > allowed)
    return make_error(file.path().string() + ": level " + std::to_string(level) + " is " + std::to_string(l.width) +
                      "x" + std::to_string(l.height) + " (" + describe_bytes(bytes) + " as RGBA" +
                      std::to_string(8 * sizeof(Sample)) + "), more than the " + describe_bytes(allowed) +
                      " a whole level may take (textures.memory_max); read a smaller level");
  const bool straighten = info.alpha != TxAlpha::kNone;
  const bool round_first = round_float_to_8 && info.is_float;
  Picture out{l.width, l.height, 4, std::vector<Sample>(std::size_t(l.width) * l.height * 4)};
  for (std::uint32_t ty = 0; ty < l.tiles_y(); ++ty) {
    for (std::uint32_t tx = 0; tx < l.tiles_x(); ++tx) {
      auto tile = file.read_tile_rgba(level, tx, ty);
      if (!tile) return tile.error();
      const std::uint32_t x0 = tx * l.tile_width, y0 = ty * l.tile_height;
      const std::uint32_t w = std::min(l.tile_width, l.width - x0), h = std::min(l.tile_height, l.height - y0);
      for (std::uint32_t y = 0; y < h; ++y) {
        for (std::uint32_t x = 0; x < w; ++x) {
          const float* in = &(*tile)[(std::size_t(y) * l.tile_width + x) * 4];
          Sample* px = &out.pixels[(std::size_t(y0 + y) * l.width + x0 + x) * 4];
          const float a = round_first ? to_unit8(in[3]) / 255.0f : in[3];
          for (int c = 0; c < 4; ++c) {
            float v = round_first ? to_unit8(in[c]) / 255.0f : in[c];
            if (c < 3 && straighten) v = a > 0 ? v / a : 0.0f;
            px[c] = to_sample(v);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

// Integer samples are un-premultiplied at their precision. Float samples are rounded to 8 bits
// first, as OpenImageIO converts them for a PNG, so that an 8-bit export is what oiiotool writes.
Result<Image> export_level(TxFile& file, std::size_t level, std::uint64_t budget_bytes) {
  return export_pixels<Image>(file, level, budget_bytes, true);
}

Result<Image16> export_level16(TxFile& file, std::size_t level, std::uint64_t budget_bytes) {
  return export_pixels<Image16>(file, level, budget_bytes, false);
}

Result<Image> make_thumbnail(TileCache& cache, const std::shared_ptr<TiledImage>& image, std::uint32_t size) {
  const TxInfo& info = image->info();
  const TxLevel& full = info.levels[0];
  const std::uint32_t longest = std::max(full.width, full.height);
  size = std::max(1u, std::min(size, longest));
  const auto scaled = [&](std::uint32_t side) {
    return std::max(1u, std::uint32_t(std::lround(double(side) * size / longest)));
  };
  const std::uint32_t width = scaled(full.width), height = scaled(full.height);
  if (width == 1 && height == 1 && info.average_color) {  // the free preview: no pixels read
    Image dot{1, 1, 4, std::vector<std::uint8_t>(4)};
    const auto& c = *info.average_color;
    const bool gray = info.channels <= 2;
    const bool alpha = info.channels == 2 || info.channels == 4;
    const float rgba[4] = {c[0], gray ? c[0] : c[1], gray ? c[0] : c[2], alpha ? c[gray ? 1 : 3] : 1.0f};
    for (int k = 0; k < 4; ++k) dot.pixels[k] = std::uint8_t(std::clamp(rgba[k] * 255.0f + 0.5f, 0.0f, 255.0f));
    return dot;
  }
  auto level = read_level(cache, image, thumbnail_level(info, size));
  if (!level) return level.error();
  if (level->width == width && level->height == height) return level;
  return resize_box(*level, width, height);
}

}  // namespace kiln::textures
