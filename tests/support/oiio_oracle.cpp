#include "oiio_oracle.h"

#include <OpenImageIO/imageio.h>
#include <OpenImageIO/texture.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

namespace kiln::test {

namespace {

// An ImageInput at mip level `level`, alpha as stored (OIIO would otherwise premultiply straight alpha).
std::unique_ptr<OIIO::ImageInput> open_level(const std::filesystem::path& path, int level) {
  OIIO::ImageSpec config;
  config.attribute("oiio:UnassociatedAlpha", 1);
  auto in = OIIO::ImageInput::open(path.string(), &config);
  REQUIRE_MESSAGE(in, OIIO::geterror());
  REQUIRE_MESSAGE(in->seek_subimage(0, level), in->geterror());
  return in;
}

}  // namespace

textures::Image oiio_read_level(const std::filesystem::path& path, int level) {
  auto in = open_level(path, level);
  const OIIO::ImageSpec spec = in->spec();
  textures::Image raw{std::uint32_t(spec.width), std::uint32_t(spec.height), spec.nchannels, {}};
  raw.pixels.resize(std::size_t(spec.width) * spec.height * spec.nchannels);
  REQUIRE_MESSAGE(in->read_image(0, level, 0, spec.nchannels, OIIO::TypeDesc::UINT8, raw.pixels.data()),
                  in->geterror());
  return textures::to_rgba(raw);
}

textures::Image premultiplied(textures::Image rgba) {
  for (std::size_t p = 0; p < rgba.pixels.size(); p += 4)
    for (int c = 0; c < 3; ++c)
      rgba.pixels[p + c] = std::uint8_t(std::lround(rgba.pixels[p + c] * rgba.pixels[p + 3] / 255.0));
  return rgba;
}

float max_difference_255(const FloatPixels& a, const FloatPixels& b) {
  REQUIRE(a.width == b.width);
  REQUIRE(a.height == b.height);
  float worst = 0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i) worst = std::max(worst, std::fabs(a.rgba[i] - b.rgba[i]) * 255.0f);
  return worst;
}

FloatPixels oiio_read_rgba(const std::filesystem::path& path, int level) {
  auto in = open_level(path, level);
  const OIIO::ImageSpec spec = in->spec();
  const int c = spec.nchannels;
  std::vector<float> raw(std::size_t(spec.width) * spec.height * c);
  REQUIRE_MESSAGE(in->read_image(0, level, 0, c, OIIO::TypeDesc::FLOAT, raw.data()), in->geterror());
  FloatPixels out{spec.width, spec.height, c, std::vector<float>(std::size_t(spec.width) * spec.height * 4)};
  for (std::size_t p = 0; p < std::size_t(spec.width) * spec.height; ++p) {
    const float* s = &raw[p * c];
    float* d = &out.rgba[p * 4];
    const bool gray = c <= 2;
    d[0] = s[0], d[1] = gray ? s[0] : s[1], d[2] = gray ? s[0] : s[2];
    d[3] = c == 2 ? s[1] : c == 4 ? s[3] : 1.0f;
  }
  return out;
}

struct OiioTextures::Impl {
  OIIO::TextureSystem* ts = nullptr;
};

// OIIO's process-wide texture system, never destroyed: OIIO 2.4's TextureSystem::destroy() deletes
// through the wrong type (AddressSanitizer: new-delete-type-mismatch). Tests use their own temp
// files, so sharing its cache between tests mixes nothing.
OiioTextures::OiioTextures(float budget_mb) : impl_(std::make_unique<Impl>()) {
  impl_->ts = OIIO::TextureSystem::create(true);
  impl_->ts->attribute("max_memory_MB", budget_mb);
}

OiioTextures::~OiioTextures() = default;

namespace {

std::array<float, 4> lookup(OIIO::TextureSystem* ts, const std::filesystem::path& path, OIIO::TextureOpt& opt,
                            const std::string& wrap, float s, float t, float dsdx, float dtdx, float dsdy, float dtdy) {
  const auto comma = wrap.find(',');
  opt.swrap = OIIO::TextureOpt::decode_wrapmode(wrap.substr(0, comma).c_str());
  opt.twrap =
      OIIO::TextureOpt::decode_wrapmode(comma == std::string::npos ? wrap.c_str() : wrap.substr(comma + 1).c_str());
  std::array<float, 4> out{0, 0, 0, 0};
  const bool ok = ts->texture(OIIO::ustring(path.string()), opt, s, t, dsdx, dtdx, dsdy, dtdy, 4, out.data());
  REQUIRE_MESSAGE(ok, ts->geterror());
  return out;
}

}  // namespace

std::array<float, 4> OiioTextures::bilinear(const std::filesystem::path& path, float s, float t,
                                            const std::string& wrap) {
  OIIO::TextureOpt opt;
  opt.mipmode = OIIO::TextureOpt::MipModeNoMIP;
  opt.interpmode = OIIO::TextureOpt::InterpBilinear;
  return lookup(impl_->ts, path, opt, wrap, s, t, 0, 0, 0, 0);
}

std::array<float, 4> OiioTextures::trilinear(const std::filesystem::path& path, float s, float t, float dsdx,
                                             float dtdx, float dsdy, float dtdy, const std::string& wrap) {
  OIIO::TextureOpt opt;
  opt.mipmode = OIIO::TextureOpt::MipModeTrilinear;
  opt.interpmode = OIIO::TextureOpt::InterpBilinear;
  return lookup(impl_->ts, path, opt, wrap, s, t, dsdx, dtdx, dsdy, dtdy);
}

}  // namespace kiln::test
