#include "kiln/textures/image.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <unistd.h>

#include "box_footprints.h"
#include "kiln/core/input_limits.h"
#include "image_formats.h"

namespace kiln::textures {
namespace {

std::uint8_t round_u8(float v) { return std::uint8_t(std::clamp(v + 0.5f, 0.0f, 255.0f)); }

}  // namespace

std::vector<BoxFootprint> box_footprints(std::uint32_t from, std::uint32_t to) {
  std::vector<BoxFootprint> spans(to);
  const double scale = double(from) / to;
  for (std::uint32_t i = 0; i < to; ++i) {
    if (to >= from) {  // not shrinking: nearest
      spans[i].first = std::min<std::uint32_t>(from - 1, std::uint32_t((i + 0.5) * scale));
      spans[i].weights = {1.0f};
      continue;
    }
    const double lo = i * scale, hi = (i + 1) * scale;
    const auto first = std::uint32_t(std::floor(lo));
    const auto last = std::min<std::uint32_t>(from - 1, std::uint32_t(std::ceil(hi)) - 1);
    spans[i].first = first;
    for (std::uint32_t s = first; s <= last; ++s) {
      const double covered = std::min<double>(hi, s + 1) - std::max<double>(lo, s);
      spans[i].weights.push_back(float(covered / scale));
    }
  }
  return spans;
}

namespace {
SourceReader g_source_reader = nullptr;
}

void set_source_reader(SourceReader reader) { g_source_reader = reader; }

namespace {

// The source formats Kiln decodes itself, by their files' first bytes; every other format goes to
// the source reader (the tools' image importer) when one is set.
struct Decoder {
  const char* name;
  bool (*matches)(const unsigned char* magic);  // the first 4 bytes
  Result<Image> (*read)(const std::filesystem::path& path);
};

constexpr Decoder kDecoders[] = {
    {"PNG", [](const unsigned char* m) { return m[0] == 0x89 && m[1] == 'P' && m[2] == 'N' && m[3] == 'G'; }, read_png},
    {"TIFF", [](const unsigned char* m) { return (m[0] == 'I' && m[1] == 'I') || (m[0] == 'M' && m[1] == 'M'); },
     read_tiff},
};

}  // namespace

Result<Image> read_image(const std::filesystem::path& path) {
  // The decoders open the file by name: only after the check that refuses a FIFO or a device.
  auto opened = open_input_file(path, std::numeric_limits<std::uint64_t>::max(), "texture");
  if (!opened) return opened.error();
  unsigned char magic[4] = {};
  const ssize_t got = ::pread(opened->fd, magic, 4, 0);
  ::close(opened->fd);
  if (got == 4)
    for (const Decoder& d : kDecoders)
      if (d.matches(magic)) return d.read(path);
  if (g_source_reader) return g_source_reader(path);
  std::string names;
  for (std::size_t i = 0; i < std::size(kDecoders); ++i)
    names += std::string(i == 0 ? "" : i + 1 == std::size(kDecoders) ? " or " : ", ") + kDecoders[i].name;
  return make_error(path.string() + ": not a " + names + " image (unknown signature)");
}

Image to_rgba(const Image& image) {
  Image out{image.width, image.height, 4, std::vector<std::uint8_t>(std::size_t(image.width) * image.height * 4)};
  const std::size_t n = std::size_t(image.width) * image.height;
  for (std::size_t p = 0; p < n; ++p) {
    const std::uint8_t* s = &image.pixels[p * image.channels];
    std::uint8_t* d = &out.pixels[p * 4];
    if (image.channels <= 2) {
      d[0] = d[1] = d[2] = s[0];
      d[3] = image.channels == 2 ? s[1] : 255;
    } else {
      d[0] = s[0], d[1] = s[1], d[2] = s[2];
      d[3] = image.channels == 4 ? s[3] : 255;
    }
  }
  return out;
}

void unpremultiply(Image& rgba) {
  for (std::size_t p = 0; p + 3 < rgba.pixels.size(); p += 4) {
    const unsigned a = rgba.pixels[p + 3];
    if (a == 0 || a == 255) continue;
    for (int c = 0; c < 3; ++c)
      rgba.pixels[p + c] = std::uint8_t(std::min(255u, (rgba.pixels[p + c] * 255u + a / 2) / a));
  }
}

Image resize_box(const Image& image, std::uint32_t width, std::uint32_t height) {
  const int c = image.channels;
  const auto xs = box_footprints(image.width, width), ys = box_footprints(image.height, height);
  // Horizontal pass into floats, then vertical: separable, so each output pixel is the exact area average.
  std::vector<float> rows(std::size_t(width) * image.height * c);
  for (std::uint32_t y = 0; y < image.height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      float* out = &rows[(std::size_t(y) * width + x) * c];
      for (std::size_t k = 0; k < xs[x].weights.size(); ++k) {
        const std::uint8_t* in = image.at(xs[x].first + std::uint32_t(k), y);
        for (int ch = 0; ch < c; ++ch) out[ch] += xs[x].weights[k] * in[ch];
      }
    }
  }
  Image out{width, height, c, std::vector<std::uint8_t>(std::size_t(width) * height * c)};
  std::vector<float> sum(c);
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (std::size_t k = 0; k < ys[y].weights.size(); ++k) {
        const float* in = &rows[((ys[y].first + k) * width + x) * c];
        for (int ch = 0; ch < c; ++ch) sum[ch] += ys[y].weights[k] * in[ch];
      }
      for (int ch = 0; ch < c; ++ch) out.pixels[(std::size_t(y) * width + x) * c + ch] = round_u8(sum[ch]);
    }
  }
  return out;
}

}  // namespace kiln::textures
