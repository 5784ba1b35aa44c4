#include <memory>
#include <vector>

#include <algorithm>

#include "kiln/core/input_limits.h"
#include "image_formats.h"
#include "tiff_errors.h"
#include "tiff_library.h"

namespace kiln::textures {

Result<Image> read_tiff(const std::filesystem::path& path) {
  if (Status loaded = begin_tiff_call(); !loaded) return make_error(path.string() + ": " + loaded.error().message);
  std::unique_ptr<TIFF, void (*)(TIFF*)> tif(tiff().open(path.c_str(), "r"), tiff().close);
  if (!tif)
    return make_error(path.string() + ": cannot open as TIFF" +
                      (tiff_error().empty() ? "" : " (" + tiff_error() + ")"));
  std::uint32_t width = 0, height = 0;
  std::uint16_t spp = 0;
  tiff().get_field(tif.get(), TIFFTAG_IMAGEWIDTH, &width);
  tiff().get_field(tif.get(), TIFFTAG_IMAGELENGTH, &height);
  tiff().get_field_defaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
  if (width == 0 || height == 0) return make_error(path.string() + ": empty image");
  // Decoded as 32-bit RGBA first, then copied to its channels: both count.
  if (width > limits::kImageSide || height > limits::kImageSide ||
      std::uint64_t(width) * height * (4 + std::max<std::uint16_t>(spp, 1)) > limits::kDecodedImageBytes)
    return make_error(path.string() + ": " + std::to_string(width) + "x" + std::to_string(height) +
                      " is larger than the limit (" + std::to_string(limits::kImageSide) + " pixels per side, " +
                      describe_bytes(limits::kDecodedImageBytes) + " decoded)");
  if (spp < 1 || spp > 4)
    return make_error(path.string() + ": " + std::to_string(spp) + " channels (1 to 4 are supported)");
  // libtiff's RGBA decoder handles every layout (strips, tiles, planar, bit depths, palettes).
  std::vector<std::uint32_t> rgba(std::size_t(width) * height);
  char message[1024] = "";
  if (!tiff().rgba_image_ok(tif.get(), message))
    return make_error(path.string() + ": cannot decode this TIFF: " + message);
  if (!tiff().read_rgba_image_oriented(tif.get(), width, height, rgba.data(), ORIENTATION_TOPLEFT, 0))
    return make_error(path.string() + ": cannot decode" + (tiff_error().empty() ? "" : " (" + tiff_error() + ")"));
  Image image{width, height, spp, {}};
  image.pixels.resize(std::size_t(width) * height * spp);
  for (std::size_t p = 0; p < rgba.size(); ++p) {
    const std::uint8_t v[4] = {std::uint8_t(TIFFGetR(rgba[p])), std::uint8_t(TIFFGetG(rgba[p])),
                               std::uint8_t(TIFFGetB(rgba[p])), std::uint8_t(TIFFGetA(rgba[p]))};
    std::uint8_t* out = &image.pixels[p * spp];
    switch (spp) {
      case 1: out[0] = v[0]; break;
      case 2: out[0] = v[0], out[1] = v[3]; break;
      default:
        for (int c = 0; c < spp; ++c) out[c] = v[c];
    }
  }
  return image;
}

}  // namespace kiln::textures
