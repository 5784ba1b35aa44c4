#include "mip_chain.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "box_footprints.h"

namespace kiln::textures {
namespace {

// A level in flight: premultiplied linear values, channels as the source has them.
struct Linear {
  std::uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<float> values;
};

int alpha_index(int channels) { return channels == 2 || channels == 4 ? channels - 1 : -1; }

Linear half_size(const Linear& in) {
  const std::uint32_t w = std::max(1u, in.width / 2), h = std::max(1u, in.height / 2);
  const int c = in.channels;
  const auto xs = box_footprints(in.width, w), ys = box_footprints(in.height, h);
  std::vector<float> rows(std::size_t(w) * in.height * c, 0.0f);
  for (std::uint32_t y = 0; y < in.height; ++y)
    for (std::uint32_t x = 0; x < w; ++x)
      for (std::size_t k = 0; k < xs[x].weights.size(); ++k)
        for (int ch = 0; ch < c; ++ch)
          rows[(std::size_t(y) * w + x) * c + ch] +=
              xs[x].weights[k] * in.values[(std::size_t(y) * in.width + xs[x].first + k) * c + ch];
  Linear out{w, h, c, std::vector<float>(std::size_t(w) * h * c, 0.0f)};
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::size_t k = 0; k < ys[y].weights.size(); ++k)
      for (std::uint32_t x = 0; x < w; ++x)
        for (int ch = 0; ch < c; ++ch)
          out.values[(std::size_t(y) * w + x) * c + ch] +=
              ys[y].weights[k] * rows[((ys[y].first + k) * w + x) * c + ch];
  return out;
}

// Tangent-space normals filtered to shorter vectors: back to unit length, alpha untouched.
void renormalise(Linear& level) {
  if (level.channels < 3) return;
  for (std::size_t p = 0; p < std::size_t(level.width) * level.height; ++p) {
    float* v = &level.values[p * level.channels];
    const float a = level.channels == 4 ? v[3] : 1.0f;
    if (a <= 0) continue;
    std::array<float, 3> n{};
    for (int c = 0; c < 3; ++c) n[c] = v[c] / a * 2.0f - 1.0f;
    const float length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (length < 1e-6f) continue;
    for (int c = 0; c < 3; ++c) v[c] = (n[c] / length * 0.5f + 0.5f) * a;
  }
}

std::uint8_t to_u8(float v) { return !(v > 0) ? 0 : v >= 1 ? 255 : std::uint8_t(v * 255.0f + 0.5f); }

// Premultiplied linear to the stored form: straight colour encoded, then multiplied by alpha in
// that encoding (as OpenImageIO associates alpha), rounded to 8 bits.
Image encode(const Linear& level, bool srgb) {
  const int c = level.channels, a_at = alpha_index(c);
  Image out{level.width, level.height, c, std::vector<std::uint8_t>(level.values.size())};
  for (std::size_t p = 0; p < std::size_t(level.width) * level.height; ++p) {
    const float* v = &level.values[p * c];
    const float a = a_at < 0 ? 1.0f : std::clamp(v[a_at], 0.0f, 1.0f);
    for (int ch = 0; ch < c; ++ch) {
      if (ch == a_at) {
        out.pixels[p * c + ch] = to_u8(a);
        continue;
      }
      float straight = a > 0 ? std::clamp(v[ch] / a, 0.0f, 1.0f) : 0.0f;
      if (srgb) straight = linear_to_srgb(straight);
      out.pixels[p * c + ch] = to_u8(straight * a);
    }
  }
  return out;
}

}  // namespace

std::vector<FloatLevel> build_float_mip_chain(const Image& source, const TextureSettings& settings) {
  const int c = source.channels, a_at = alpha_index(c);
  Linear level{source.width, source.height, c, source.hdr};
  for (std::size_t p = 0; p < level.values.size(); p += c) {
    float* v = &level.values[p];
    for (int ch = 0; ch < c; ++ch)
      if (!std::isfinite(v[ch])) v[ch] = std::isnan(v[ch]) ? 0.0f : std::copysign(65504.0f, v[ch]);
    const float a = a_at < 0 ? 1.0f : std::clamp(v[a_at], 0.0f, 1.0f);
    for (int ch = 0; ch < c; ++ch) v[ch] = ch == a_at ? a : v[ch] * a;
  }
  std::vector<FloatLevel> chain;
  chain.push_back({level.width, level.height, c, level.values});
  while (level.width > 1 || level.height > 1) {
    level = half_size(level);
    if (settings.normal_map) renormalise(level);
    chain.push_back({level.width, level.height, c, level.values});
  }
  return chain;
}

std::vector<Image> build_mip_chain(const Image& source, const TextureSettings& settings) {
  const int c = source.channels, a_at = alpha_index(c);
  const bool srgb = settings.color_space == ColorSpace::kSrgb && !settings.normal_map;
  std::array<float, 256> decode{};
  for (int i = 0; i < 256; ++i) decode[i] = srgb ? srgb_to_linear(i / 255.0f) : i / 255.0f;

  // Level 0 is the source premultiplied in its own encoding, exactly: v * a / 255, rounded.
  Image top = source;
  if (a_at >= 0)
    for (std::size_t p = 0; p < top.pixels.size(); p += c)
      for (int ch = 0; ch < a_at; ++ch)
        top.pixels[p + ch] = std::uint8_t((unsigned(source.pixels[p + ch]) * source.pixels[p + a_at] + 127) / 255);
  std::vector<Image> chain;
  chain.push_back(std::move(top));

  Linear level{source.width, source.height, c, std::vector<float>(source.pixels.size())};
  for (std::size_t p = 0; p < source.pixels.size(); p += c) {
    const float a = a_at < 0 ? 1.0f : source.pixels[p + a_at] / 255.0f;
    for (int ch = 0; ch < c; ++ch)
      level.values[p + ch] =
          ch == a_at ? a : (settings.normal_map ? source.pixels[p + ch] / 255.0f : decode[source.pixels[p + ch]]) * a;
  }
  while (level.width > 1 || level.height > 1) {
    level = half_size(level);
    if (settings.normal_map) renormalise(level);
    chain.push_back(encode(level, srgb));
  }
  return chain;
}

}  // namespace kiln::textures
