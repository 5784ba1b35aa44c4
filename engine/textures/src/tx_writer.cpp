#include "kiln/textures/tx_writer.h"

#include <nettle/sha1.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/atomic_output.h"
#include "mip_chain.h"
#include "tiff_errors.h"
#include "tiff_library.h"

namespace kiln::textures {
namespace {

std::string sha1_hex_upper(const std::vector<std::uint8_t>& bytes) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, bytes.size(), bytes.data());
  std::uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, sizeof digest, digest);
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (std::uint8_t byte : digest) out += {hex[byte >> 4], hex[byte & 15]};
  return out;
}

std::string color_text(const std::vector<double>& values) {
  std::string out;
  char buf[32];
  for (double v : values) {
    std::snprintf(buf, sizeof buf, "%g", v);
    out += (out.empty() ? "" : ",") + std::string(buf);
  }
  return out;
}

// maketx's ImageDescription: "oiio:SHA-1=… oiio:AverageColor=…" (+ oiio:ConstantColor when constant),
// of the stored level 0, and the settings the conversion followed.
std::string describe(const Image& image, const TextureSettings& settings) {
  const int c = image.channels;
  const std::size_t n = std::size_t(image.width) * image.height;
  std::vector<double> sum(c, 0.0);
  bool constant = true;
  for (std::size_t p = 0; p < n; ++p) {
    for (int ch = 0; ch < c; ++ch) {
      const std::uint8_t v = image.pixels[p * c + ch];
      sum[ch] += v;
      constant = constant && v == image.pixels[ch];
    }
  }
  std::vector<double> average(c), first(c);
  for (int ch = 0; ch < c; ++ch) {
    average[ch] = sum[ch] / double(n) / 255.0;
    first[ch] = image.pixels[ch] / 255.0;
  }
  std::string text = "oiio:SHA-1=" + sha1_hex_upper(image.pixels);
  if (constant) text += " oiio:ConstantColor=" + color_text(first);
  text += " oiio:AverageColor=" + color_text(average);
  text += std::string(" oiio:ColorSpace=") +
          color_space_name(settings.normal_map ? ColorSpace::kLinear : settings.color_space);
  if (settings.normal_map) text += " kiln:NormalMap=1";
  return text + (settings.filter == TextureFilter::kNearest ? " kiln:Filter=nearest" : "");
}

// The tags every level carries, whatever its samples.
void write_common_tags(TIFF* tif, std::uint32_t width, std::uint32_t height, int c, const TxWriteOptions& options,
                       const std::string& description, bool reduced) {
  tiff().set_field(tif, TIFFTAG_SUBFILETYPE, reduced ? FILETYPE_REDUCEDIMAGE : 0);
  tiff().set_field(tif, TIFFTAG_IMAGEWIDTH, width);
  tiff().set_field(tif, TIFFTAG_IMAGELENGTH, height);
  tiff().set_field(tif, TIFFTAG_SAMPLESPERPIXEL, c);
  tiff().set_field(tif, TIFFTAG_PHOTOMETRIC, c >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  tiff().set_field(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  tiff().set_field(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
  if (c == 2 || c == 4) {
    // Colour is stored premultiplied (associated alpha), as maketx stores it.
    const std::uint16_t extra = EXTRASAMPLE_ASSOCALPHA;
    tiff().set_field(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  tiff().set_field(tif, TIFFTAG_TILEWIDTH, options.tile_size);
  tiff().set_field(tif, TIFFTAG_TILELENGTH, options.tile_size);
  switch (options.settings.compression) {
    case TileCompression::kZip: tiff().set_field(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE); break;
    case TileCompression::kZstd: tiff().set_field(tif, TIFFTAG_COMPRESSION, COMPRESSION_ZSTD); break;
    case TileCompression::kNone: tiff().set_field(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE); break;
  }
  tiff().set_field(tif, TIFFTAG_SOFTWARE, "Kiln");
  tiff().set_field(tif, TIFFTAG_IMAGEDESCRIPTION, description.c_str());
  tiff().set_field(tif, TIFFTAG_PIXAR_TEXTUREFORMAT, "Plain Texture");
  const std::string wrap =
      std::string(wrap_mode_name(options.settings.wrap_s)) + "," + wrap_mode_name(options.settings.wrap_t);
  tiff().set_field(tif, TIFFTAG_PIXAR_WRAPMODES, wrap.c_str());
  tiff().set_field(tif, TIFFTAG_PIXAR_FOVCOT, float(width) / float(height));
}

// The ImageDescription of an HDR level 0: its half floats hashed, its average and constant colour.
std::string describe_float(const FloatLevel& level, const std::vector<std::uint16_t>& halves,
                           const TextureSettings& settings) {
  const int c = level.channels;
  const std::size_t n = std::size_t(level.width) * level.height;
  std::vector<double> sum(c, 0.0), first(c);
  bool constant = true;
  for (std::size_t p = 0; p < n; ++p)
    for (int ch = 0; ch < c; ++ch) {
      sum[ch] += half_to_float(halves[p * c + ch]);
      constant = constant && halves[p * c + ch] == halves[ch];
    }
  for (int ch = 0; ch < c; ++ch) {
    sum[ch] /= double(n);
    first[ch] = half_to_float(halves[ch]);
  }
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(halves.data());
  std::string text = "oiio:SHA-1=" + sha1_hex_upper(std::vector<std::uint8_t>(bytes, bytes + halves.size() * 2));
  if (constant) text += " oiio:ConstantColor=" + color_text(first);
  text += " oiio:AverageColor=" + color_text(sum) + " oiio:ColorSpace=linear";
  if (settings.normal_map) text += " kiln:NormalMap=1";
  return text + (settings.filter == TextureFilter::kNearest ? " kiln:Filter=nearest" : "");
}

std::vector<std::uint16_t> to_halves(const FloatLevel& level) {
  std::vector<std::uint16_t> out(level.values.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = float_to_half(level.values[i]);
  return out;
}

Status write_float_level(TIFF* tif, const FloatLevel& level, const std::vector<std::uint16_t>& halves,
                         const TxWriteOptions& options, const std::string& description, bool reduced) {
  const int c = level.channels;
  write_common_tags(tif, level.width, level.height, c, options, description, reduced);
  tiff().set_field(tif, TIFFTAG_BITSPERSAMPLE, 16);
  tiff().set_field(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
  const std::uint32_t ts = options.tile_size;
  std::vector<std::uint16_t> tile(std::size_t(ts) * ts * c);
  for (std::uint32_t y0 = 0; y0 < level.height; y0 += ts)
    for (std::uint32_t x0 = 0; x0 < level.width; x0 += ts) {
      for (std::uint32_t y = 0; y < ts; ++y) {
        const std::uint32_t sy = std::min(level.height - 1, y0 + y);
        for (std::uint32_t x = 0; x < ts; ++x) {
          const std::uint32_t sx = std::min(level.width - 1, x0 + x);
          std::memcpy(&tile[(std::size_t(y) * ts + x) * c], &halves[(std::size_t(sy) * level.width + sx) * c], 2 * c);
        }
      }
      if (tiff().write_tile(tif, tile.data(), x0, y0, 0, 0) < 0) return make_error("cannot write a tile");
    }
  if (!tiff().write_directory(tif)) return make_error("cannot write a directory");
  return {};
}

Status write_level(TIFF* tif, const Image& level, const TxWriteOptions& options, const std::string& description,
                   bool reduced) {
  const int c = level.channels;
  write_common_tags(tif, level.width, level.height, c, options, description, reduced);
  tiff().set_field(tif, TIFFTAG_BITSPERSAMPLE, 8);
  tiff().set_field(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  // Differences of neighbours compress better than the values; raw tiles stay as they are.
  if (options.settings.compression != TileCompression::kNone)
    tiff().set_field(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);

  const std::uint32_t ts = options.tile_size;
  std::vector<std::uint8_t> tile(std::size_t(ts) * ts * c);
  for (std::uint32_t y0 = 0; y0 < level.height; y0 += ts) {
    for (std::uint32_t x0 = 0; x0 < level.width; x0 += ts) {
      // Edge tiles are padded by repeating the last row and column, as maketx does: a filter that
      // strays past the edge reads plausible pixels, and the padding compresses to nothing.
      for (std::uint32_t y = 0; y < ts; ++y) {
        const std::uint32_t sy = std::min(level.height - 1, y0 + y);
        for (std::uint32_t x = 0; x < ts; ++x) {
          const std::uint32_t sx = std::min(level.width - 1, x0 + x);
          std::memcpy(&tile[(std::size_t(y) * ts + x) * c], level.at(sx, sy), c);
        }
      }
      if (tiff().write_tile(tif, tile.data(), x0, y0, 0, 0) < 0) return make_error("cannot write a tile");
    }
  }
  if (!tiff().write_directory(tif)) return make_error("cannot write a directory");
  return {};
}

}  // namespace

Status write_tx(const Image& image, const std::filesystem::path& path, const TxWriteOptions& options) {
  if (image.width == 0 || image.height == 0 || image.channels < 1 || image.channels > 4 ||
      image.pixels.size() != std::size_t(image.width) * image.height * image.channels)
    return make_error(path.string() + ": cannot write an empty or inconsistent image");
  if (options.tile_size == 0 || options.tile_size % 16 != 0)
    return make_error(path.string() + ": tile size " + std::to_string(options.tile_size) + " is not a multiple of 16");
  if (Status loaded = begin_tiff_call(); !loaded) return make_error(path.string() + ": " + loaded.error().message);
  AtomicOutput out(path);
  // "w8" would be BigTIFF; a classic TIFF holds 4 GiB, far more than a texture.
  TIFF* tif = tiff().open(out.temp_path().c_str(), "w");
  if (!tif)
    return make_error(path.string() + ": cannot create" + (tiff_error().empty() ? "" : " (" + tiff_error() + ")"));
  Status status;
  const std::uint32_t cap = options.settings.max_size;
  if (!image.hdr.empty()) {
    if (image.hdr.size() != image.pixels.size())
      return make_error(path.string() + ": the HDR values do not match the image");
    TxWriteOptions linear = options;  // HDR values are linear light, whatever the slot says
    linear.settings.color_space = ColorSpace::kLinear;
    const std::vector<FloatLevel> chain = build_float_mip_chain(image, linear.settings);
    std::size_t first = 0;
    while (cap && first + 1 < chain.size() && std::max(chain[first].width, chain[first].height) > cap) ++first;
    std::string description;
    for (std::size_t l = first; l < chain.size() && status; ++l) {
      const std::vector<std::uint16_t> halves = to_halves(chain[l]);
      if (l == first) description = describe_float(chain[l], halves, linear.settings);
      status = write_float_level(tif, chain[l], halves, linear, description, l > first);
    }
  }
  const std::vector<Image> chain = image.hdr.empty() ? build_mip_chain(image, options.settings) : std::vector<Image>{};
  // A size cap drops the levels above it: what is shipped is the chain's own next level, not a
  // second resampling.
  std::size_t first = 0;
  while (cap && first + 1 < chain.size() && std::max(chain[first].width, chain[first].height) > cap) ++first;
  const std::string description = chain.empty() ? std::string() : describe(chain[first], options.settings);
  for (std::size_t l = first; l < chain.size() && status; ++l)
    status = write_level(tif, chain[l], options, description, l > first);
  if (status && !tiff().flush(tif)) status = make_error("cannot flush");
  tiff().close(tif);
  if (!status)
    return make_error(path.string() + ": " + status.error().message +
                      (tiff_error().empty() ? "" : " (" + tiff_error() + ")"));
  return out.commit();
}

Status convert_to_tx(const std::filesystem::path& source, const std::filesystem::path& tx,
                     const TxWriteOptions& options) {
  auto image = read_image(source);
  if (!image) return image.error();
  TxWriteOptions used = options;
  if (used.settings.source_color_space && image->declared_color_space)
    used.settings.color_space = *image->declared_color_space;
  return write_tx(*image, tx, used);
}

}  // namespace kiln::textures
