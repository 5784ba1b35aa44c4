// PNG through libpng's classic API: it reports errors by longjmp, so the decoding function keeps
// no C++ objects with destructors alive across the setjmp.
#include <png.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/input_limits.h"
#include "image_formats.h"
#include "kiln/core/atomic_output.h"
#include "kiln/textures/image.h"

namespace kiln::textures {
namespace {

struct PngErrors {
  char message[256] = "";
};

void on_png_error(png_structp png, png_const_charp msg) {
  auto* errors = static_cast<PngErrors*>(png_get_error_ptr(png));
  std::snprintf(errors->message, sizeof errors->message, "%s", msg);
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

// Decodes into `rows` (allocated by the caller once the header is known, through `alloc`).
// Returns false with errors->message set on failure.
bool decode_png(std::FILE* file, PngErrors* errors, Image* image) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, errors, on_png_error, on_png_warning);
  if (!png) return std::snprintf(errors->message, sizeof errors->message, "out of memory"), false;
  png_infop info = png_create_info_struct(png);
  // volatile: assigned after setjmp and read after the longjmp back (otherwise it may read as null
  // there, and leak).
  png_bytep* volatile rows = nullptr;
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    std::free(rows);
    if (!errors->message[0]) std::snprintf(errors->message, sizeof errors->message, "out of memory");
    return false;
  }
  png_init_io(png, file);
  png_read_info(png, info);
  // The colour space the file declares: an sRGB chunk, or a gAMA of 1/2.2 (sRGB-like) or 1.0 (linear).
  png_fixed_point gamma = 0;
  if (png_get_valid(png, info, PNG_INFO_sRGB))
    image->declared_color_space = ColorSpace::kSrgb;
  else if (png_get_gAMA_fixed(png, info, &gamma) && gamma > 0)
    image->declared_color_space = std::abs(gamma - 100000) < 2000  ? std::optional(ColorSpace::kLinear)
                                  : std::abs(gamma - 45455) < 2000 ? std::optional(ColorSpace::kSrgb)
                                                                   : std::nullopt;
  const int color = png_get_color_type(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  png_set_scale_16(png);  // rounds 16-bit samples to 8 (strip_16 would truncate)
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  const int channels = png_get_channels(png, info);
  if (width == 0 || height == 0 || channels < 1 || channels > 4)
    png_error(png, "unsupported image size or channel count");
  if (width > limits::kImageSide || height > limits::kImageSide ||
      std::uint64_t(width) * height * channels > limits::kDecodedImageBytes) {
    // png_error leaves by longjmp: the message must not live in an object with a destructor.
    char message[160];
    std::snprintf(message, sizeof message, "%ux%u is larger than the limit (%u pixels per side, %llu MiB decoded)",
                  unsigned(width), unsigned(height), unsigned(limits::kImageSide),
                  static_cast<unsigned long long>(limits::kDecodedImageBytes >> 20));
    png_error(png, message);
  }
  image->width = width;
  image->height = height;
  image->channels = channels;
  image->pixels.resize(std::size_t(width) * height * channels);  // may throw: caught by the caller
  rows = static_cast<png_bytep*>(std::malloc(sizeof(png_bytep) * height));
  if (!rows) png_error(png, "out of memory");
  for (png_uint_32 y = 0; y < height; ++y) rows[y] = image->pixels.data() + std::size_t(y) * width * channels;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  std::free(rows);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

// Where png_write_png puts the file: kept by the caller, appended to by libpng.
void append_png_bytes(png_structp png, png_bytep data, png_size_t size) {
  auto* out = static_cast<std::vector<std::byte>*>(png_get_io_ptr(png));
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  bool grown = true;
  try {
    out->insert(out->end(), bytes, bytes + size);
  } catch (const std::bad_alloc&) {
    grown = false;  // reported by longjmp below, outside the handler: no exception crosses libpng
  }
  if (!grown) png_error(png, "out of memory");
}
void flush_nothing(png_structp) {}

// Encodes `rows` (8-bit samples, or big-endian 16-bit ones) into `out`. Returns false with
// errors->message set.
bool encode_png(std::uint32_t width, std::uint32_t height, int channels, int bit_depth, png_bytep* rows, bool fast,
                PngErrors* errors, std::vector<std::byte>* out) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, errors, on_png_error, on_png_warning);
  if (!png) return std::snprintf(errors->message, sizeof errors->message, "out of memory"), false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    if (!errors->message[0]) std::snprintf(errors->message, sizeof errors->message, "out of memory");
    return false;
  }
  static const int types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                              PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(png, out, append_png_bytes, flush_nothing);
  png_set_IHDR(png, info, width, height, bit_depth, types[channels - 1], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (fast) {
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  }
  png_set_rows(png, info, rows);
  png_write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

// The whole PNG of `rows` written to `path` through a temporary file.
Status write_png_rows(std::uint32_t width, std::uint32_t height, int channels, int bit_depth, png_bytep* rows,
                      const std::filesystem::path& path, PngWriteOptions options) {
  PngErrors errors;
  std::vector<std::byte> bytes;
  try {
    if (!encode_png(width, height, channels, bit_depth, rows, options.fast, &errors, &bytes))
      return make_error(path.string() + ": cannot encode PNG: " + errors.message);
  } catch (const std::bad_alloc&) {
    return make_error(path.string() + ": out of memory encoding the PNG");
  }
  return write_file_atomically(path, bytes, 0644, options.durability);
}

}  // namespace

Status write_png16(const Image16& image, const std::filesystem::path& path) {
  if (image.channels < 1 || image.channels > 4 || image.width == 0 || image.height == 0 ||
      image.pixels.size() != std::size_t(image.width) * image.height * image.channels)
    return make_error(path.string() + ": nothing to write (empty image)");
  // PNG stores 16-bit samples most significant byte first.
  std::vector<png_byte> samples(image.pixels.size() * 2);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) {
    samples[2 * i] = png_byte(image.pixels[i] >> 8);
    samples[2 * i + 1] = png_byte(image.pixels[i] & 0xff);
  }
  const std::size_t row_bytes = std::size_t(image.width) * image.channels * 2;
  std::vector<png_bytep> rows(image.height);
  for (std::uint32_t y = 0; y < image.height; ++y) rows[y] = samples.data() + y * row_bytes;
  return write_png_rows(image.width, image.height, image.channels, 16, rows.data(), path, {});
}

Result<Image> read_png(const std::filesystem::path& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) return make_error(path.string() + ": cannot open: " + std::strerror(errno));
  png_byte signature[8];
  if (std::fread(signature, 1, 8, file.get()) != 8 || png_sig_cmp(signature, 0, 8) != 0)
    return make_error(path.string() + ": not a PNG file (bad signature)");
  std::rewind(file.get());
  PngErrors errors;
  Image image;
  bool ok = false;
  try {
    ok = decode_png(file.get(), &errors, &image);
  } catch (const std::bad_alloc&) {
    return make_error(path.string() + ": out of memory decoding the PNG");
  }
  if (!ok) return make_error(path.string() + ": broken PNG: " + errors.message);
  return image;
}

Status write_png(const Image& image, const std::filesystem::path& path, PngWriteOptions options) {
  if (image.channels < 1 || image.channels > 4 || image.width == 0 || image.height == 0 ||
      image.pixels.size() != std::size_t(image.width) * image.height * image.channels)
    return make_error(path.string() + ": nothing to write (empty image)");
  const std::size_t row_bytes = std::size_t(image.width) * image.channels;
  std::vector<png_bytep> rows(image.height);
  // libpng reads the rows; its API takes them as writable.
  auto* pixels = const_cast<png_byte*>(image.pixels.data());
  for (std::uint32_t y = 0; y < image.height; ++y) rows[y] = pixels + y * row_bytes;
  return write_png_rows(image.width, image.height, image.channels, 8, rows.data(), path, options);
}

}  // namespace kiln::textures
