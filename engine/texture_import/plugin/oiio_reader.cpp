#include "oiio_reader.h"

#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <cmath>

#include "kiln/core/input_limits.h"

namespace kiln::texture_import {

Result<textures::Image> read_with_oiio(const std::filesystem::path& path) {
  OIIO::ImageSpec config;
  config.attribute("oiio:UnassociatedAlpha", 1);  // straight colour, as every source image is kept
  auto in = OIIO::ImageInput::open(path.string(), &config);
  if (!in) {
    std::string why = OIIO::geterror();
    if (why.empty()) why = "not an image OpenImageIO reads";
    return make_error(path.string() + ": cannot read as an image: " + why);
  }
  const OIIO::ImageSpec& spec = in->spec();
  if (spec.width <= 0 || spec.height <= 0 || spec.nchannels <= 0 || spec.depth != 1)
    return make_error(path.string() + ": not a 2D image with channels");
  if (std::uint32_t(spec.width) > limits::kImageSide || std::uint32_t(spec.height) > limits::kImageSide)
    return make_error(path.string() + ": " + std::to_string(spec.width) + "x" + std::to_string(spec.height) +
                      " is larger than the limit of " + std::to_string(limits::kImageSide) + " pixels per side");
  const int channels = std::min(spec.nchannels, 4);
  const std::uint64_t bytes = std::uint64_t(spec.width) * std::uint64_t(spec.height) * std::uint64_t(channels);
  if (bytes > limits::kDecodedImageBytes)
    return make_error(path.string() + ": " + describe_bytes(bytes) + " decoded is more than the limit of " +
                      describe_bytes(limits::kDecodedImageBytes));
  std::vector<float> values(bytes);
  if (!in->read_image(0, 0, 0, channels, OIIO::TypeDesc::FLOAT, values.data())) {
    std::string why = in->geterror();
    return make_error(path.string() + ": cannot decode: " + (why.empty() ? "unknown error" : why));
  }
  // Formats that store premultiplied colour (EXR) keep it so whatever was asked; only the others
  // say their colour is straight.
  const int alpha = spec.alpha_channel >= 0 && spec.alpha_channel < channels ? spec.alpha_channel : -1;
  const bool premultiplied = alpha >= 0 && spec.get_int_attribute("oiio:UnassociatedAlpha", 0) == 0;
  textures::Image image{std::uint32_t(spec.width), std::uint32_t(spec.height), channels,
                        std::vector<std::uint8_t>(bytes)};
  // Stored as floats (EXR, .hdr): high dynamic range, kept whole beside the 8-bit rounding.
  const bool hdr = spec.format.basetype == OIIO::TypeDesc::HALF || spec.format.basetype == OIIO::TypeDesc::FLOAT ||
                   spec.format.basetype == OIIO::TypeDesc::DOUBLE;
  if (hdr) image.hdr.resize(bytes);
  for (std::size_t p = 0; p < values.size(); p += std::size_t(channels)) {
    const float a = alpha >= 0 ? values[p + alpha] : 1.0f;
    for (int c = 0; c < channels; ++c) {
      float v = values[p + c];
      if (premultiplied && c != alpha) v = a > 0 ? v / a : 0.0f;
      if (hdr) image.hdr[p + c] = std::isfinite(v) ? v : 0.0f;
      image.pixels[p + c] = !(v > 0) ? 0 : v >= 1 ? 255 : std::uint8_t(v * 255.0f + 0.5f);  // HDR clamped; NaN 0
    }
  }
  const std::string space = spec.get_string_attribute("oiio:ColorSpace");
  if (OIIO::Strutil::iequals(space, "sRGB"))
    image.declared_color_space = textures::ColorSpace::kSrgb;
  else if (OIIO::Strutil::iequals(space, "linear") || OIIO::Strutil::iequals(space, "scene_linear"))
    image.declared_color_space = textures::ColorSpace::kLinear;
  return image;
}

}  // namespace kiln::texture_import
