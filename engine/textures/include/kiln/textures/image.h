#pragma once
// Plain 8-bit images: what source files (PNG, untiled TIFF) decode to, what the .tx writer takes,
// what export and thumbnails produce. Channels are kept as the source has them (1 gray, 2 gray +
// alpha, 3 RGB, 4 RGBA), interleaved, rows top to bottom. 16-bit images are what an export of a
// 16-bit or float .tx writes.
//
// Thread-safety: plain values and free functions; no shared state.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "kiln/core/atomic_output.h"
#include "kiln/core/result.h"
#include "kiln/textures/texture_settings.h"

namespace kiln::textures {

struct Image {
  std::uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;                // width * height * channels
  std::optional<ColorSpace> declared_color_space;  // what the source file says its colour is, if it does
  // A high-dynamic-range source's values (EXR, .hdr: stored as floats), straight and linear, laid
  // out as `pixels`; empty for every other source. The .tx writer keeps them as half floats.
  std::vector<float> hdr;

  const std::uint8_t* at(std::uint32_t x, std::uint32_t y) const {
    return &pixels[(std::size_t(y) * width + x) * channels];
  }
};

// The same layout at 16 bits per channel (0..65535).
struct Image16 {
  std::uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<std::uint16_t> pixels;  // width * height * channels
};

// Reads a PNG (any bit depth, palette, transparency; 16-bit rounded to 8) or a TIFF (any layout
// libtiff decodes) into 8 bits per channel, colour straight (not premultiplied); any other format
// through the reader a tool registered (set_source_reader). Errors name the file and the problem.
Result<Image> read_image(const std::filesystem::path& path);

// The reader of source formats other than PNG and TIFF. The tools register one backed by
// OpenImageIO (engine/texture_import) at start-up, before any conversion; the player registers none
// and reads only .tx. Not synchronised: set it before other threads read images.
using SourceReader = Result<Image> (*)(const std::filesystem::path& path);
void set_source_reader(SourceReader reader);

// How a PNG is written. `fast`: zlib's fastest level and one row filter, for pictures made often
// (previews): a few times quicker, a little larger. `durability`: see kiln/core/atomic_output.h.
struct PngWriteOptions {
  bool fast = false;
  kiln::Durability durability = kiln::Durability::kFlushed;
};

// Writes `image` as an 8-bit PNG through a temporary file renamed over `path`: a crash never
// leaves a torn file.
Status write_png(const Image& image, const std::filesystem::path& path, PngWriteOptions options = {});

// Writes `image` as a 16-bit PNG, atomically as write_png does.
Status write_png16(const Image16& image, const std::filesystem::path& path);

// `image` with 4 channels: gray spread to RGB, a missing alpha opaque.
Image to_rgba(const Image& image);

// RGBA8 with premultiplied colour to straight colour (what an image file holds), in place. A fully
// transparent pixel keeps colour 0.
void unpremultiply(Image& rgba);

// `image` resized to width x height with an area-weighted box filter: every output pixel the
// average of the source pixels it covers, weighted by the area covered (a larger target repeats
// pixels, nearest). Thumbnails; the .tx writer's mips filter in linear light (mip_chain.h).
Image resize_box(const Image& image, std::uint32_t width, std::uint32_t height);

}  // namespace kiln::textures
