#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "child_process.h"
#include "kiln/textures/thumbnail.h"
#include "kiln/textures/tx_writer.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "test_files.h"
#include "tx_fixtures.h"

using namespace kiln;
using namespace kiln::textures;
namespace fs = std::filesystem;

namespace {

// A PNG with a gradient made by oiiotool: a source as artists hand them over.
fs::path make_png(const test::TempDir& dir, const std::string& name, int w, int h, int channels) {
  const std::string pattern = test::gradient_pattern(channels);
  const fs::path png = dir / (name + ".png");
  auto r = test::run_process({"/usr/bin/oiiotool", "--pattern", pattern, std::to_string(w) + "x" + std::to_string(h),
                              std::to_string(channels), "-d", "uint8", "-o", png.string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  return png;
}

using test::premultiplied;
using test::slurp;

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("Kiln-written .tx files read in OIIO with the same pixels on every level") {
    test::TempDir dir("txw");
    struct Case {
      int w, h, channels;
      const char* levels;
    };
    const Case cases[] = {
        {300, 200, 3, "300x200 150x100 75x50 37x25 18x12 9x6 4x3 2x1 1x1"},
        {256, 256, 4, "256x256 128x128 64x64 32x32 16x16 8x8 4x4 2x2 1x1"},
        {130, 70, 1, "130x70 65x35 32x17 16x8 8x4 4x2 2x1 1x1"},
        {97, 61, 2, "97x61 48x30 24x15 12x7 6x3 3x1 1x1"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.w);
      const fs::path png = make_png(dir, "src" + std::to_string(c.w), c.w, c.h, c.channels);
      const fs::path tx = dir / ("out" + std::to_string(c.w) + ".tx");
      auto source = read_image(png);
      REQUIRE_MESSAGE(source, source.error().message);
      REQUIRE(write_tx(*source, tx, {.settings = {.wrap_s = WrapMode::Periodic, .wrap_t = WrapMode::Clamp}}));

      auto info = test::run_process({"/usr/bin/oiiotool", "--info", "-v", tx.string()});
      REQUIRE_MESSAGE(info.exit_code == 0, info.output);
      CHECK_MESSAGE(info.output.find(std::string("MIP-map levels: ") + c.levels) != std::string::npos, info.output);
      CHECK(info.output.find("tile size: 64 x 64") != std::string::npos);
      CHECK(info.output.find("compression: \"zip\"") != std::string::npos);
      CHECK(info.output.find("wrapmodes: \"periodic,clamp\"") != std::string::npos);
      CHECK(info.output.find("oiio:AverageColor") != std::string::npos);
      // idiff: level 0 is the source. OIIO premultiplies straight alpha when it reads (PNG in float,
      // TIFF in 8 bits), so with alpha the two may differ by one 8-bit step; the exact comparison of
      // every level, alpha as stored, follows.
      const bool alpha = c.channels == 2 || c.channels == 4;
      auto same = test::run_process({"/usr/bin/idiff", "-fail", alpha ? "0.0040" : "1e-6", png.string(), tx.string()});
      CHECK_MESSAGE(same.exit_code == 0, same.output);

      TileCache cache({.memory_budget_bytes = 16 << 20});
      auto image = cache.open(tx);
      REQUIRE_MESSAGE(image, image.error().message);
      CHECK((*image)->info().wrap_s == WrapMode::Periodic);
      CHECK((*image)->info().wrap_t == WrapMode::Clamp);
      CHECK((*image)->info().channels == c.channels);
      CHECK((*image)->info().sha1.size() == 40);  // OIIO keeps oiio:SHA-1 only from files maketx wrote
      for (std::size_t level = 0; level < (*image)->info().levels.size(); ++level) {
        CAPTURE(level);
        auto ours = read_level(cache, *image, level);
        REQUIRE(ours);
        const Image theirs = test::oiio_read_level(tx, int(level));
        REQUIRE(theirs.width == ours->width);
        REQUIRE(theirs.height == ours->height);
        CHECK(theirs.pixels == ours->pixels);
      }
      // Level 0 is the source with its colour premultiplied by alpha, as the cache delivers it.
      auto level0 = read_level(cache, *image, 0);
      CHECK(level0->pixels == premultiplied(to_rgba(*source)).pixels);
    }
  }

  TEST_CASE("the mip chain is box filtered: 2x2 averages for even sizes - the mean kept for odd ones") {
    test::TempDir dir("txw");
    // Linear colour, so that the stored values are the filtered ones (sRGB filters in linear light).
    const TxWriteOptions linear{.settings = {.color_space = ColorSpace::kLinear}};
    auto source = read_image(make_png(dir, "even", 128, 64, 4));
    REQUIRE(source);
    REQUIRE(write_tx(*source, dir / "even.tx", linear));
    TileCache cache({.memory_budget_bytes = 16 << 20});
    auto even = cache.open(dir / "even.tx");
    REQUIRE(even);
    const Image full = premultiplied(to_rgba(*source));  // what level 0 holds
    auto half = read_level(cache, *even, 1);
    REQUIRE(half);
    REQUIRE(half->width == 64);
    REQUIRE(half->height == 32);
    for (std::uint32_t y = 0; y < half->height; ++y)
      for (std::uint32_t x = 0; x < half->width; ++x)
        for (int c = 0; c < 4; ++c) {
          const int sum = full.at(2 * x, 2 * y)[c] + full.at(2 * x + 1, 2 * y)[c] + full.at(2 * x, 2 * y + 1)[c] +
                          full.at(2 * x + 1, 2 * y + 1)[c];
          REQUIRE(std::abs(half->at(x, y)[c] - sum / 4.0) <= 1.0);  // premultiplied level 0 is itself rounded
        }
    auto odd = read_image(make_png(dir, "odd", 125, 77, 3));
    REQUIRE(odd);
    REQUIRE(write_tx(*odd, dir / "odd.tx", linear));
    auto odd_tx = cache.open(dir / "odd.tx");
    REQUIRE(odd_tx);
    const auto mean = [](const Image& im, int c) {
      double s = 0;
      for (std::uint32_t y = 0; y < im.height; ++y)
        for (std::uint32_t x = 0; x < im.width; ++x) s += im.at(x, y)[c];
      return s / (double(im.width) * im.height);
    };
    auto odd_half = read_level(cache, *odd_tx, 1);
    REQUIRE(odd_half);
    CHECK(odd_half->width == 62);
    CHECK(odd_half->height == 38);
    const Image odd_rgba = to_rgba(*odd);
    for (int c = 0; c < 3; ++c) CHECK(std::abs(mean(*odd_half, c) - mean(odd_rgba, c)) < 0.5);
  }

  TEST_CASE("the same pixels make the same .tx bytes - and a constant image says so") {
    test::TempDir dir("txw");
    auto source = read_image(make_png(dir, "img", 100, 40, 3));
    REQUIRE(source);
    REQUIRE(write_tx(*source, dir / "a.tx"));
    REQUIRE(write_tx(*source, dir / "b.tx"));
    CHECK(slurp(dir / "a.tx") == slurp(dir / "b.tx"));

    Image flat{90, 50, 3, {}};
    for (int i = 0; i < 90 * 50; ++i) flat.pixels.insert(flat.pixels.end(), {51, 102, 153});
    REQUIRE(write_tx(flat, dir / "flat.tx"));
    auto file = TxFile::open(dir / "flat.tx");
    REQUIRE(file);
    REQUIRE((*file)->info().constant_color);
    CHECK((*(*file)->info().constant_color)[1] == doctest::Approx(0.4f));
    auto info = test::run_process({"/usr/bin/oiiotool", "--info", "-v", (dir / "flat.tx").string()});
    CHECK(info.output.find("oiio:ConstantColor: \"0.2,0.4,0.6\"") != std::string::npos);
  }

  TEST_CASE("bad sources and failed writes are clear errors and leave no file behind") {
    test::TempDir dir("txw");
    const fs::path png = make_png(dir, "ok", 64, 64, 3);
    const std::string bytes = slurp(png);
    std::ofstream(dir / "cut.png", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
    auto cut = read_image(dir / "cut.png");
    REQUIRE_FALSE(cut);
    CHECK(cut.error().message.rfind((dir / "cut.png").string() + ": broken PNG: ", 0) == 0);

    std::ofstream(dir / "note.png") << "just text";
    auto text = read_image(dir / "note.png");
    REQUIRE_FALSE(text);
    CHECK(text.error().message == (dir / "note.png").string() + ": not a PNG or TIFF image (unknown signature)");

    auto source = read_image(png);
    REQUIRE(source);
    auto bad_tile = write_tx(*source, dir / "x.tx", {.tile_size = 40});
    REQUIRE_FALSE(bad_tile);
    CHECK(bad_tile.error().message == (dir / "x.tx").string() + ": tile size 40 is not a multiple of 16");

    auto no_dir = write_tx(*source, dir / "missing" / "x.tx");
    REQUIRE_FALSE(no_dir);
    CHECK(no_dir.error().message.find("missing/x.tx: cannot create") != std::string::npos);
    for (const auto& entry : fs::directory_iterator(dir.path()))
      CHECK_MESSAGE(entry.path().filename().string().rfind(".tmp.", 0) != 0, entry.path());
  }
}
