#pragma once
// Images for the codec tests: photograph-like colour (smooth light, fine detail at every scale,
// soft and hard edges, colours that vary together), and PSNR.

#include <cmath>
#include <cstdint>
#include <random>

#include "kiln/texture_codecs/block_codec.h"

namespace kiln::test {

// Noise whose energy falls off with frequency, as in photographs: octaves of smooth value noise.
inline texture_codecs::RgbaLevel photo_like(std::uint32_t width, std::uint32_t height, std::uint32_t seed,
                                            bool alpha = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  constexpr int kOctaves = 6;
  float lattice[kOctaves][3][17][17];
  for (auto& octave : lattice)
    for (auto& channel : octave)
      for (auto& row : channel)
        for (float& v : row) v = unit(rng);
  const float tint[3] = {0.6f + 0.4f * unit(rng), 0.5f + 0.4f * unit(rng), 0.4f + 0.4f * unit(rng)};
  texture_codecs::RgbaLevel out{width, height, std::vector<std::uint8_t>(std::size_t(width) * height * 4)};
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x) {
      float c[3] = {};
      for (int o = 0; o < kOctaves; ++o) {
        const float cells = float(1 << (o + 1));
        const float fx = float(x) / float(width) * cells, fy = float(y) / float(height) * cells;
        const int ix = int(fx) % 16, iy = int(fy) % 16;
        const float tx = fx - std::floor(fx), ty = fy - std::floor(fy);
        const float sx = tx * tx * (3 - 2 * tx), sy = ty * ty * (3 - 2 * ty);
        const float amplitude = 1.0f / float(1 << o);
        for (int ch = 0; ch < 3; ++ch) {
          // Channels share most of their structure, as a scene's colours do.
          const int k = o < 3 ? 0 : ch;
          const auto& l = lattice[o][k];
          const float v = (l[iy][ix] * (1 - sx) + l[iy][ix + 1] * sx) * (1 - sy) +
                          (l[iy + 1][ix] * (1 - sx) + l[iy + 1][ix + 1] * sx) * sy;
          c[ch] += v * amplitude;
        }
      }
      // A hard edge: an object in front of the background.
      const float dx = float(x) - 0.6f * float(width), dy = float(y) - 0.4f * float(height);
      const bool inside = dx * dx + dy * dy < 0.05f * float(width) * float(height);
      std::uint8_t* p = &out.rgba[(std::size_t(y) * width + x) * 4];
      for (int ch = 0; ch < 3; ++ch) {
        float v = c[ch] / 1.97f * tint[ch] * (inside ? 0.55f : 1.0f) + (inside && ch == 0 ? 0.3f : 0.0f);
        p[ch] = std::uint8_t(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
      }
      p[3] = alpha ? std::uint8_t(std::clamp(c[0] / 1.97f * 1.4f - 0.2f, 0.0f, 1.0f) * 255.0f + 0.5f) : 255;
      if (alpha)
        for (int ch = 0; ch < 3; ++ch) p[ch] = std::uint8_t((unsigned(p[ch]) * p[3] + 127) / 255);
    }
  return out;
}

// PSNR of `b` against `a` over the first `channels` channels, in dB.
inline double psnr(const texture_codecs::RgbaLevel& a, const texture_codecs::RgbaLevel& b, int channels = 3) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t p = 0; p < a.rgba.size(); p += 4)
    for (int c = 0; c < channels; ++c, ++n) {
      const double d = double(a.rgba[p + c]) - double(b.rgba[p + c]);
      sum += d * d;
    }
  const double mse = sum / double(n);
  return mse == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace kiln::test
