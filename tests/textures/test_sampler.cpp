#include <doctest/doctest.h>

#include <random>

#include "kiln/textures/sampler.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "tx_fixtures.h"

using namespace kiln;
using namespace kiln::textures;
using kiln::test::make_tx;
namespace fs = std::filesystem;

namespace {

// OIIO's texture() and Kiln's sampler both compute in float from 8-bit texels; they agree to
// rounding (measured worst case here: ~1e-6). The tolerance leaves room for a different summation
// order, far below one 8-bit step (0.0039).
constexpr float kTolerance = 2e-4f;

float worst_difference(const Color& a, const std::array<float, 4>& b) {
  float worst = 0;
  for (int c = 0; c < 4; ++c) worst = std::max(worst, std::fabs(a[c] - b[c]));
  return worst;
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("bilinear lookups match OIIO's TextureSystem in every wrap mode") {
    test::TempDir dir("sampler");
    const fs::path tx = make_tx(dir, "img", 203, 97, 4, {"--tile", "32", "32"});
    TileCache cache({.memory_budget_bytes = 16 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    test::OiioTextures oiio;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> coord(-1.3f, 2.3f);  // inside and well outside [0, 1]
    for (const char* wrap : {"black", "clamp", "periodic", "mirror"}) {
      CAPTURE(wrap);
      TextureSampler sampler(cache, *image, {.wrap_s = parse_wrap_mode(wrap), .wrap_t = parse_wrap_mode(wrap)});
      float worst = 0;
      for (int i = 0; i < 2000; ++i) {
        const float s = coord(rng), t = coord(rng);
        auto ours = sampler.bilinear(s, t);
        REQUIRE(ours);
        worst = std::max(worst, worst_difference(*ours, oiio.bilinear(tx, s, t, wrap)));
      }
      CHECK(worst <= kTolerance);
    }
  }

  TEST_CASE("the default wrap modes are the file's wrapmodes tag") {
    test::TempDir dir("sampler");
    const fs::path tx = make_tx(dir, "wrapped", 64, 48, 4, {"--wrap", "periodic,mirror"});
    TileCache cache({.memory_budget_bytes = 16 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    CHECK((*image)->info().wrap_s == WrapMode::Periodic);
    CHECK((*image)->info().wrap_t == WrapMode::Mirror);
    TextureSampler sampler(cache, *image);
    test::OiioTextures oiio;
    for (float s : {-0.7f, -0.01f, 0.5f, 1.2f, 1.9f})
      for (float t : {-0.6f, 0.3f, 1.05f, 1.7f}) {
        auto ours = sampler.bilinear(s, t);
        REQUIRE(ours);
        // OIIO's own "default" misreads the tag its maketx writes ("periodic,mirror,periodic,mirror"
        // gives t = black), so the oracle is asked for the modes explicitly.
        CHECK(worst_difference(*ours, oiio.bilinear(tx, s, t, "periodic,mirror")) <= kTolerance);
      }
  }

  TEST_CASE("trilinear lookups from derivatives match OIIO's level choice and blend") {
    test::TempDir dir("sampler");
    const fs::path tx = make_tx(dir, "mip", 256, 160, 4);
    TileCache cache({.memory_budget_bytes = 16 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    TextureSampler sampler(cache, *image, {.wrap_s = WrapMode::Periodic, .wrap_t = WrapMode::Periodic});
    test::OiioTextures oiio;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> coord(0.0f, 1.0f), log_width(-9.0f, 0.5f), skew(-1.0f, 1.0f);
    float worst = 0;
    for (int i = 0; i < 2000; ++i) {
      const float s = coord(rng), t = coord(rng);
      const float w = std::exp2(log_width(rng));  // from magnified to wider than the image
      const float dsdx = w, dtdx = w * 0.3f * skew(rng), dsdy = w * 0.3f * skew(rng),
                  dtdy = w * (0.5f + 0.5f * coord(rng));
      auto ours = sampler.trilinear(s, t, dsdx, dtdx, dsdy, dtdy);
      REQUIRE(ours);
      worst = std::max(worst, worst_difference(*ours, oiio.trilinear(tx, s, t, dsdx, dtdx, dsdy, dtdy, "periodic")));
    }
    CHECK(worst <= kTolerance);
  }

  TEST_CASE("nearest lookups are texels and a level of detail blends two levels") {
    test::TempDir dir("sampler");
    const fs::path tx = make_tx(dir, "near", 128, 64, 4);
    TileCache cache({.memory_budget_bytes = 16 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    TextureSampler sampler(cache, *image, {.wrap_s = WrapMode::Clamp, .wrap_t = WrapMode::Clamp});
    const Image level1 = test::oiio_read_level(tx, 1);
    for (std::uint32_t y = 0; y < level1.height; y += 7)
      for (std::uint32_t x = 0; x < level1.width; x += 5) {
        auto v = sampler.nearest((x + 0.5f) / level1.width, (y + 0.5f) / level1.height, 1);
        REQUIRE(v);
        for (int c = 0; c < 4; ++c) CHECK((*v)[c] == level1.at(x, y)[c] / 255.0f);
      }
    auto a = sampler.bilinear(0.3f, 0.6f, 2), b = sampler.bilinear(0.3f, 0.6f, 3),
         mid = sampler.trilinear(0.3f, 0.6f, 2.25f);
    REQUIRE((a && b && mid));
    for (int c = 0; c < 4; ++c) CHECK((*mid)[c] == doctest::Approx((*a)[c] * 0.75f + (*b)[c] * 0.25f));
  }
}
