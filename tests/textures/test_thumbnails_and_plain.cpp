#include <doctest/doctest.h>

#include <tiffio.h>

#include <fstream>
#include <iterator>

#include "child_process.h"
#include "kiln/textures/sampler.h"
#include "kiln/textures/thumbnail.h"
#include "kiln/textures/tx_writer.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "tx_fixtures.h"

using namespace kiln;
using namespace kiln::textures;
using kiln::test::make_tx;
namespace fs = std::filesystem;

namespace {

fs::path make_plain_png(const test::TempDir& dir, const std::string& name, int w, int h) {
  const fs::path png = dir / (name + ".png");
  auto r = test::run_process({"/usr/bin/oiiotool", "--pattern", "noise:type=uniform:seed=" + std::to_string(w + h),
                              std::to_string(w) + "x" + std::to_string(h), "4", "-d", "uint8", "-o", png.string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  return png;
}

std::size_t levels_read(const TileCacheStats& s) {
  std::size_t n = 0;
  for (auto r : s.reads_per_level) n += r != 0;
  return n;
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("a thumbnail reads only the smallest level at least as large as asked") {
    test::TempDir dir("thumb");
    const fs::path tx = make_tx(dir, "big", 1000, 600, 3);  // 1000x600 500x300 250x150 125x75 62x37 ...
    TileCache cache({.memory_budget_bytes = 32 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    CHECK(thumbnail_level((*image)->info(), 100) == 3);
    CHECK(thumbnail_level((*image)->info(), 4000) == 0);
    auto thumb = make_thumbnail(cache, *image, 100);
    REQUIRE(thumb);
    CHECK(thumb->width == 100);
    CHECK(thumb->height == 60);
    const auto s = cache.stats();
    REQUIRE(s.reads_per_level.size() == 4);
    CHECK(s.reads_per_level[3] == 4);  // 125x75 in 64x64 tiles: its whole 2x2 grid, nothing else
    CHECK(levels_read(s) == 1);
    // Box-filtered from level 3, not sampled from level 0: the average colour is kept.
    const Image level3 = test::oiio_read_level(tx, 3);
    double ours = 0, theirs = 0;
    for (std::size_t i = 0; i < thumb->pixels.size(); i += 4) ours += thumb->pixels[i];
    for (std::size_t i = 0; i < level3.pixels.size(); i += 4) theirs += level3.pixels[i];
    CHECK(ours / (thumb->pixels.size() / 4) == doctest::Approx(theirs / (level3.pixels.size() / 4)).epsilon(0.01));
  }

  TEST_CASE("a one-pixel preview is the file's average colour and reads no tile") {
    test::TempDir dir("thumb");
    const fs::path tx = make_tx(dir, "avg", 300, 300, 4);
    TileCache cache({.memory_budget_bytes = 32 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    auto dot = make_thumbnail(cache, *image, 1);
    REQUIRE(dot);
    CHECK(dot->width == 1);
    const auto& avg = *(*image)->info().average_color;
    for (int c = 0; c < 4; ++c) CHECK(dot->pixels[c] == std::uint8_t(avg[c] * 255.0f + 0.5f));
    CHECK(cache.stats().reads_per_level.empty());
  }

  TEST_CASE("pixels() converts the whole image once and keeps it until invalidated") {
    test::TempDir dir("thumb");
    const fs::path tx = make_tx(dir, "full", 150, 90, 4);
    TileCache cache({.memory_budget_bytes = 32 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    auto a = cache.pixels(*image);
    REQUIRE(a);
    CHECK((*a)->pixels == test::oiio_read_level(tx, 0).pixels);
    auto b = cache.pixels(*image);
    CHECK(b->get() == a->get());
    CHECK(cache.stats().full_image_bytes == 150 * 90 * 4);
    cache.invalidate(tx);
    CHECK(cache.stats().full_image_bytes == 0);
    CHECK((*image)->stale());
    auto after = cache.tile(**image, 0, 0, 0);
    REQUIRE_FALSE(after);
    CHECK(after.error().message == tx.string() + ": changed on disk or invalidated; open it again");
  }

  TEST_CASE("a constant texture is served from one tile") {
    test::TempDir dir("thumb");
    Image flat{300, 200, 3, {}};
    for (int i = 0; i < 300 * 200; ++i) flat.pixels.insert(flat.pixels.end(), {10, 200, 30});
    REQUIRE(write_tx(flat, dir / "flat.tx"));
    TileCache cache({.memory_budget_bytes = 32 << 20});
    auto image = cache.open(dir / "flat.tx");
    REQUIRE(image);
    TileReader reader(cache, *image);
    for (std::size_t level = 0; level < (*image)->info().levels.size(); ++level) {
      const TxLevel& l = (*image)->info().levels[level];
      for (std::uint32_t ty = 0; ty < l.tiles_y(); ++ty)
        for (std::uint32_t tx = 0; tx < l.tiles_x(); ++tx) {
          auto t = reader.tile(level, tx, ty);
          REQUIRE(t);
          CHECK((*t)->texel(5, 5)[1] == 200);
        }
    }
    CHECK(cache.stats().tiles.loads == 1);
  }

  TEST_CASE("a plain image is converted to tiles once and shares the budget") {
    test::TempDir dir("plain");
    const fs::path png = make_plain_png(dir, "photo", 700, 500);
    auto store = cache::BlobStore::open({.root = dir / "cache"});
    REQUIRE(store);
    {
      TileCache cache({.memory_budget_bytes = 32 << 20, .conversions = store->get()});
      auto image = cache.open_texture(png);
      REQUIRE_MESSAGE(image, image.error().message);
      CHECK((*image)->converted_from() == png);
      CHECK(cache.stats().plain_conversions == 1);
      auto level0 = read_level(cache, *image, 0);
      REQUIRE(level0);
      CHECK(level0->pixels == test::premultiplied(test::oiio_read_level(png, 0)).pixels);
      auto again = cache.open_texture(png);
      CHECK(again->get() == image->get());
      CHECK(cache.stats().plain_conversions == 1);
      CHECK(cache.invalidate(png) > 0);  // the source's path reaches its tiles
    }
    {
      TileCache later({.memory_budget_bytes = 32 << 20, .conversions = store->get()});
      REQUIRE(later.open_texture(png));
      CHECK(later.stats().plain_conversions == 0);  // a later run reuses the conversion
    }
    TileCache none({.memory_budget_bytes = 32 << 20});
    auto refused = none.open_texture(png);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          png.string() + ": a plain image needs the texture cache for its tiles (cache.root)");
  }

  TEST_CASE("two large plain images used in turn do not thrash") {
    test::TempDir dir("plain");
    // Each 1024x1024 RGBA image is 4 MiB decoded, four times the budget: two cannot be held whole,
    // and reloading a whole image per switch would decode 40 MiB here.
    const fs::path a = make_plain_png(dir, "a", 1024, 1024), b = make_plain_png(dir, "b", 1024, 1024);
    constexpr std::uint64_t kBudget = 1 << 20;
    auto store = cache::BlobStore::open({.root = dir / "cache"});
    REQUIRE(store);
    TileCache cache({.memory_budget_bytes = kBudget, .l1_entries = 4, .conversions = store->get()});
    for (int round = 0; round < 10; ++round) {
      for (const fs::path& source : {a, b}) {
        auto image = cache.open_texture(source);
        REQUIRE(image);
        TextureSampler sampler(cache, *image);
        for (int i = 0; i < 64; ++i) REQUIRE(sampler.bilinear(0.2f + i * 0.001f, 0.7f));  // one small region
      }
    }
    const auto s = cache.stats();
    CHECK(s.plain_conversions == 2);      // each source decoded once, ever
    CHECK(s.reads_per_level.at(0) <= 4);  // the sampled region's tiles, read once and kept
    CHECK(s.tiles.peak_bytes <= kBudget);
  }

  TEST_CASE("a bit flipped in a tile's compressed data is a clear error for that tile only") {
    test::TempDir dir("thumb");
    const fs::path good = make_tx(dir, "flip", 256, 256, 3);
    std::uint64_t offset = 0;
    {
      TIFF* tif = TIFFOpen(good.c_str(), "r");
      REQUIRE(tif);
      std::uint64_t* offsets = nullptr;
      REQUIRE(TIFFGetField(tif, TIFFTAG_TILEOFFSETS, &offsets));
      offset = offsets[5];  // level 0, tile (1, 1)
      TIFFClose(tif);
    }
    std::string bytes;
    {
      std::ifstream in(good, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    bytes[offset + 20] = char(bytes[offset + 20] ^ 0x10);
    std::ofstream(dir / "flipped.tx", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    TileCache cache({.memory_budget_bytes = 8 << 20});
    auto image = cache.open(dir / "flipped.tx");
    REQUIRE(image);
    auto broken = cache.tile(**image, 0, 1, 1);
    REQUIRE_FALSE(broken);
    CHECK(broken.error().message.rfind((dir / "flipped.tx").string() + ": level 0 tile 1,1: cannot read", 0) == 0);
    CHECK(cache.tile(**image, 0, 0, 0));  // the other tiles are fine
    CHECK(cache.tile(**image, 0, 3, 3));
    CHECK(cache.stats().failed_reads == 1);
  }
}
