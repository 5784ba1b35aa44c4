#include "oiio_oracle.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "kiln/core/runtime_library.h"
#include "oiio_plugin/oiio_plugin_api.h"

namespace kiln::test {

namespace {

// The plugin, opened once and never closed (its TextureSystems live as long as the process).
const OiioPluginApi& oiio() {
  static const OiioPluginApi* api = [] {
    auto plugin = RuntimeLibrary::open(KILN_TEST_OIIO, "the OpenImageIO oracle plugin");
    REQUIRE_MESSAGE(plugin, plugin.error().message);
    decltype(kiln_test_oiio_api)* entry = nullptr;
    plugin->bind(entry, "kiln_test_oiio_api");
    const Status bound = plugin->complete();
    REQUIRE_MESSAGE(bound, bound.error().message);
    return entry();
  }();
  return *api;
}

OiioPixels read_level(const std::filesystem::path& path, int level, bool as_float) {
  OiioPixels pixels;
  const std::string error = oiio().read_level(path.string(), level, as_float, pixels);
  REQUIRE_MESSAGE(error.empty(), error);
  return pixels;
}

}  // namespace

textures::Image oiio_read_level(const std::filesystem::path& path, int level) {
  OiioPixels pixels = read_level(path, level, false);
  textures::Image raw{std::uint32_t(pixels.width), std::uint32_t(pixels.height), pixels.channels, std::move(pixels.u8)};
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
  const OiioPixels pixels = read_level(path, level, true);
  const int c = pixels.channels;
  FloatPixels out{pixels.width, pixels.height, c, std::vector<float>(std::size_t(pixels.width) * pixels.height * 4)};
  for (std::size_t p = 0; p < std::size_t(pixels.width) * pixels.height; ++p) {
    const float* s = &pixels.f32[p * c];
    float* d = &out.rgba[p * 4];
    const bool gray = c <= 2;
    d[0] = s[0], d[1] = gray ? s[0] : s[1], d[2] = gray ? s[0] : s[2];
    d[3] = c == 2 ? s[1] : c == 4 ? s[3] : 1.0f;
  }
  return out;
}

// OIIO's process-wide texture system: tests use their own temp files, so sharing its cache between
// tests mixes nothing.
struct OiioTextures::Impl {
  void* system = nullptr;
};

OiioTextures::OiioTextures(float budget_mb) : impl_(std::make_unique<Impl>()) {
  impl_->system = oiio().create_texture_system(budget_mb);
}

OiioTextures::~OiioTextures() = default;

namespace {

std::array<float, 4> lookup(void* system, const std::filesystem::path& path, bool trilinear, const std::string& wrap,
                            const float (&st)[6]) {
  float rgba[4] = {0, 0, 0, 0};
  const std::string error = oiio().texture(system, path.string(), trilinear, wrap, st, rgba);
  REQUIRE_MESSAGE(error.empty(), error);
  return {rgba[0], rgba[1], rgba[2], rgba[3]};
}

}  // namespace

std::array<float, 4> OiioTextures::bilinear(const std::filesystem::path& path, float s, float t,
                                            const std::string& wrap) {
  return lookup(impl_->system, path, false, wrap, {s, t, 0, 0, 0, 0});
}

std::array<float, 4> OiioTextures::trilinear(const std::filesystem::path& path, float s, float t, float dsdx,
                                             float dtdx, float dsdy, float dtdy, const std::string& wrap) {
  return lookup(impl_->system, path, true, wrap, {s, t, dsdx, dtdx, dsdy, dtdy});
}

}  // namespace kiln::test
