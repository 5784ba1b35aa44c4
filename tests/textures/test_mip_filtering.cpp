#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "child_process.h"
#include "kiln/textures/thumbnail.h"
#include "kiln/textures/tx_file.h"
#include "kiln/textures/tx_writer.h"
#include "oiio_oracle.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::textures;
namespace fs = std::filesystem;

namespace {

Image random_image(std::uint32_t w, std::uint32_t h, int channels, unsigned seed) {
  std::mt19937 rng(seed);
  Image image{w, h, channels, std::vector<std::uint8_t>(std::size_t(w) * h * channels)};
  for (auto& v : image.pixels) v = std::uint8_t(rng() & 255);
  return image;
}

// Every level of a .tx as straight RGBA8, as an image file would hold it.
std::vector<Image> levels_of(const fs::path& tx) {
  auto file = TxFile::open(tx);
  REQUIRE_MESSAGE(file, file.error().message);
  std::vector<Image> out;
  for (std::size_t l = 0; l < (*file)->info().levels.size(); ++l) {
    auto level = export_level(**file, l, std::uint64_t(1) << 30);
    REQUIRE_MESSAGE(level, level.error().message);
    out.push_back(std::move(*level));
  }
  return out;
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("sRGB colour is filtered in linear light - as maketx filters it after a conversion to linear") {
    test::TempDir dir("mips-srgb");
    // A one-pixel checker (the worst case for filtering in gamma space) under noise.
    Image source = random_image(64, 32, 3, 7);
    for (std::uint32_t y = 0; y < 32; ++y)
      for (std::uint32_t x = 0; x < 64; ++x)
        for (int c = 0; c < 3; ++c) {
          auto& v = source.pixels[(std::size_t(y) * 64 + x) * 3 + c];
          v = std::uint8_t((x + y) % 2 ? v / 8 : 255 - v / 8);
        }
    REQUIRE(write_png(source, dir / "src.png"));
    REQUIRE(write_tx(source, dir / "kiln.tx"));  // 8-bit colour: sRGB by default
    // The oracle: OIIO converts the source to linear floats, maketx box-filters them.
    auto r = test::run_process({"/usr/bin/oiiotool", (dir / "src.png").string(), "--colorconvert", "sRGB", "linear",
                                "-d", "float", "-o", (dir / "linear.exr").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    r = test::run_process({"/usr/bin/maketx", (dir / "linear.exr").string(), "-o", (dir / "oracle.tx").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);

    const auto ours = levels_of(dir / "kiln.tx");
    REQUIRE(ours.size() == 7);  // 64x32 ... 1x1
    float worst = 0, worst_gamma = 0;
    for (std::size_t l = 1; l < ours.size(); ++l) {
      const auto theirs = test::oiio_read_rgba(dir / "oracle.tx", int(l));
      for (std::size_t p = 0; p < std::size_t(ours[l].width) * ours[l].height; ++p)
        for (int c = 0; c < 3; ++c) {
          const float expected = linear_to_srgb(theirs.rgba[p * 4 + c]) * 255.0f;
          worst = std::max(worst, std::fabs(ours[l].pixels[p * 4 + c] - expected));
        }
      if (l == 1) {  // what filtering the encoded values would have given, for scale
        const auto gamma = test::oiio_read_rgba(dir / "src.png");
        for (std::uint32_t y = 0; y < ours[1].height; ++y)
          for (std::uint32_t x = 0; x < ours[1].width; ++x) {
            float sum = 0;
            for (int k = 0; k < 4; ++k) sum += gamma.rgba[((2 * y + k / 2) * 64 + 2 * x + k % 2) * 4];
            worst_gamma = std::max(worst_gamma, std::fabs(ours[1].pixels[(y * ours[1].width + x) * 4] - sum / 4 * 255));
          }
      }
    }
    CHECK(worst <= 1.5f);
    CHECK(worst_gamma > 40.0f);  // the checker really tells the two apart
  }

  TEST_CASE("an alpha cut-out's mips keep their colour at the edge - no dark fringe") {
    test::TempDir dir("mips-cutout");
    // Opaque orange leaves on fully transparent black: what a foliage texture is.
    Image source{64, 64, 4, std::vector<std::uint8_t>(64 * 64 * 4, 0)};
    for (std::uint32_t y = 0; y < 64; ++y)
      for (std::uint32_t x = 0; x < 64; ++x)
        if ((x - 30.5) * (x - 30.5) + (y - 28.5) * (y - 28.5) < 19.3 * 19.3) {
          std::uint8_t* px = &source.pixels[(std::size_t(y) * 64 + x) * 4];
          px[0] = 230, px[1] = 120, px[2] = 20, px[3] = 255;
        }
    REQUIRE(write_tx(source, dir / "leaf.tx"));
    const auto levels = levels_of(dir / "leaf.tx");
    // Every partly covered texel keeps the leaf's colour, within what 8-bit premultiplied storage
    // can hold at its alpha (half a step of v * a, divided by a); filtering straight colour would
    // have mixed in the black of the transparent texels (a texel half covered: half as bright).
    std::size_t edge_texels = 0;
    double sum[3] = {0, 0, 0};
    const int leaf[3] = {230, 120, 20};
    for (std::size_t l = 1; l < levels.size(); ++l)
      for (std::size_t p = 0; p < std::size_t(levels[l].width) * levels[l].height; ++p) {
        const std::uint8_t* px = &levels[l].pixels[p * 4];
        if (px[3] == 0 || px[3] == 255) continue;
        ++edge_texels;
        CAPTURE(l);
        CAPTURE(p);
        for (int c = 0; c < 3; ++c) {
          CHECK(std::abs(px[c] - leaf[c]) <= 1.0 + 128.0 / px[3]);
          sum[c] += px[c];
        }
      }
    REQUIRE(edge_texels > 20);  // the edge was there to darken
    for (int c = 0; c < 3; ++c) CHECK(std::fabs(sum[c] / edge_texels - leaf[c]) < 2.0);
  }

  TEST_CASE("a normal map's mips are renormalised - stored linear") {
    test::TempDir dir("mips-normals");
    // Rough random tangent-space normals: averaging them shortens them a lot.
    std::mt19937 rng(3);
    std::normal_distribution<float> tilt(0.0f, 0.6f);
    Image source{32, 32, 3, std::vector<std::uint8_t>(32 * 32 * 3)};
    for (std::size_t p = 0; p < 32 * 32; ++p) {
      float n[3] = {tilt(rng), tilt(rng), 1.0f};
      const float length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (int c = 0; c < 3; ++c)
        source.pixels[p * 3 + c] = std::uint8_t(std::lround((n[c] / length * 0.5f + 0.5f) * 255));
    }
    REQUIRE(write_tx(source, dir / "normals.tx", {.settings = {.color_space = ColorSpace::kSrgb, .normal_map = true}}));
    const auto levels = levels_of(dir / "normals.tx");
    for (std::size_t l = 1; l < levels.size(); ++l)
      for (std::size_t p = 0; p < std::size_t(levels[l].width) * levels[l].height; ++p) {
        float length2 = 0;
        for (int c = 0; c < 3; ++c) {
          const float n = levels[l].pixels[p * 4 + c] / 255.0f * 2.0f - 1.0f;
          length2 += n * n;
        }
        CAPTURE(l);
        CHECK(std::fabs(std::sqrt(length2) - 1.0f) < 0.02f);
      }
    auto file = TxFile::open(dir / "normals.tx");
    REQUIRE(file);
    CHECK((*file)->info().normal_map);
    CHECK((*file)->info().color_space == "linear");
  }

  TEST_CASE("a .tx records its colour space in its description - read back by Kiln and shown by OIIO") {
    test::TempDir dir("mips-colorspace");
    const Image source = random_image(16, 16, 3, 1);
    REQUIRE(write_tx(source, dir / "srgb.tx"));
    REQUIRE(write_tx(source, dir / "linear.tx", {.settings = {.color_space = ColorSpace::kLinear}}));
    for (const auto& [name, space] : {std::pair{"srgb.tx", "sRGB"}, std::pair{"linear.tx", "linear"}}) {
      auto file = TxFile::open(dir / name);
      REQUIRE(file);
      CHECK((*file)->info().color_space == space);
      auto shown = test::run_process({"/usr/bin/oiiotool", "--info", "-v", (dir / name).string()});
      CHECK_MESSAGE(shown.output.find(std::string("oiio:ColorSpace=") + space) != std::string::npos, shown.output);
    }
    // Linear data is filtered as it is stored: level 1 is the plain 2x2 average.
    const auto levels = levels_of(dir / "linear.tx");
    for (std::uint32_t y = 0; y < 8; ++y)
      for (std::uint32_t x = 0; x < 8; ++x) {
        int sum = 0;
        for (int k = 0; k < 4; ++k) sum += source.pixels[((2 * y + k / 2) * 16 + 2 * x + k % 2) * 3];
        CHECK(std::abs(levels[1].pixels[(y * 8 + x) * 4] - sum / 4.0f) <= 0.51f);
      }
  }
}
