#include <doctest/doctest.h>

#include <tiffio.h>

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "child_process.h"
#include "kiln/textures/tx_file.h"
#include "temp_dir.h"
#include "tx_fixtures.h"

using kiln::test::make_tx;

using namespace kiln;
using namespace kiln::textures;
namespace fs = std::filesystem;

namespace {

// Level `level` as OIIO reads it, 8-bit, through libtiff's own RGBA decoder: the oracle.
std::vector<std::uint32_t> oiio_level(const test::TempDir& dir, const fs::path& tx, std::size_t level, std::uint32_t& w,
                                      std::uint32_t& h) {
  const fs::path out = dir / ("oiio-level-" + std::to_string(level) + ".tif");
  auto r = test::run_process({"/usr/bin/oiiotool", tx.string(), "--selectmip", std::to_string(level), "-d", "uint8",
                              "--compression", "none", "-o", out.string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  TIFF* tif = TIFFOpen(out.c_str(), "r");
  REQUIRE(tif);
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
  std::vector<std::uint32_t> pixels(std::size_t(w) * h);
  REQUIRE(TIFFReadRGBAImageOriented(tif, w, h, pixels.data(), ORIENTATION_TOPLEFT, 0));
  TIFFClose(tif);
  return pixels;
}

// Every level of `tx` read tile by tile through Kiln equals OIIO's pixels.
void check_every_level(const test::TempDir& dir, const fs::path& tx, int max_difference = 0) {
  auto file = TxFile::open(tx);
  REQUIRE_MESSAGE(file, file.error().message);
  const TxInfo& info = (*file)->info();
  for (std::size_t level = 0; level < info.levels.size(); ++level) {
    const TxLevel& l = info.levels[level];
    std::uint32_t w = 0, h = 0;
    const auto expected = oiio_level(dir, tx, level, w, h);
    REQUIRE(w == l.width);
    REQUIRE(h == l.height);
    int worst = 0;
    for (std::uint32_t ty = 0; ty < l.tiles_y(); ++ty) {
      for (std::uint32_t tx_ = 0; tx_ < l.tiles_x(); ++tx_) {
        auto tile = (*file)->read_tile_rgba8(level, tx_, ty);
        REQUIRE_MESSAGE(tile, tile.error().message);
        for (std::uint32_t y = 0; y < l.tile_height; ++y) {
          for (std::uint32_t x = 0; x < l.tile_width; ++x) {
            const std::uint32_t px = tx_ * l.tile_width + x, py = ty * l.tile_height + y;
            if (px >= l.width || py >= l.height) continue;
            const std::uint32_t e = expected[std::size_t(py) * w + px];
            const std::uint8_t want[4] = {std::uint8_t(TIFFGetR(e)), std::uint8_t(TIFFGetG(e)),
                                          std::uint8_t(TIFFGetB(e)), std::uint8_t(TIFFGetA(e))};
            const std::uint8_t* got = &(*tile)[(std::size_t(y) * l.tile_width + x) * 4];
            for (int c = 0; c < 4; ++c) worst = std::max(worst, std::abs(int(got[c]) - int(want[c])));
          }
        }
      }
    }
    CHECK_MESSAGE(worst <= max_difference, tx.filename() << " level " << level << ": largest difference " << worst);
  }
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("a .tx truncated after it was opened is a read error naming it - raw and compressed tiles") {
    // The file is read with positional reads: a tile past the new end is a short read, where a
    // mapping of it would end the process with SIGBUS.
    test::TempDir dir("tx");
    for (const std::string compression : {"none", "zip"}) {
      CAPTURE(compression);
      const fs::path tx =
          make_tx(dir, "cut-" + compression, 512, 512, 4, {"--compression", compression, "--tile", "64", "64"});
      auto file = TxFile::open(tx);
      REQUIRE_MESSAGE(file, file.error().message);
      REQUIRE(::truncate(tx.c_str(), 4096) == 0);
      const TxLevel& l = (*file)->info().levels[0];
      auto tile = (*file)->read_tile_rgba8(0, l.tiles_x() - 1, l.tiles_y() - 1);
      REQUIRE_FALSE(tile);
      CHECK_MESSAGE(tile.error().message.find(tx.string() + ": level 0 tile 7,7") == 0, tile.error().message);
    }
  }

  TEST_CASE("every level of maketx files reads as OIIO reads it: RGB RGBA gray non-power-of-two and tiles 32 and 64") {
    test::TempDir dir("tx");
    SUBCASE("RGB 300x200, 64x64 tiles") { check_every_level(dir, make_tx(dir, "rgb", 300, 200, 3)); }
    SUBCASE("RGBA 257x129, 32x32 tiles") {
      check_every_level(dir, make_tx(dir, "rgba", 257, 129, 4, {"--tile", "32", "32"}));
    }
    SUBCASE("gray 100x77") { check_every_level(dir, make_tx(dir, "gray", 100, 77, 1)); }
    // 16-bit samples reach 8 bits by rounding, as OIIO converts them: equal, or one step apart.
    SUBCASE("16-bit RGB 130x66") { check_every_level(dir, make_tx(dir, "rgb16", 130, 66, 3, {}, "uint16"), 1); }
  }

  TEST_CASE("opening a .tx knows every level's size and tile grid and maketx's metadata - and reads no pixels") {
    test::TempDir dir("tx");
    auto file = TxFile::open(make_tx(dir, "np2", 1000, 600, 3));
    REQUIRE(file);
    const TxInfo& info = (*file)->info();
    REQUIRE(info.levels.size() == 10);  // 1000x600 500x300 250x150 125x75 62x37 31x18 15x9 7x4 3x2 1x1
    CHECK(info.levels[3].width == 125);
    CHECK(info.levels[3].height == 75);
    CHECK(info.levels[4].width == 62);
    CHECK(info.levels[9].width == 1);
    CHECK(info.levels[0].tile_width == 64);
    CHECK(info.levels[0].tiles_x() == 16);
    CHECK(info.levels[0].tiles_y() == 10);
    CHECK(info.channels == 3);
    CHECK(info.bits_per_sample == 8);
    REQUIRE(info.average_color);
    CHECK((*info.average_color)[3] == 1.0f);
    CHECK_FALSE(info.constant_color);
    CHECK(info.sha1.size() == 40);
  }

  TEST_CASE("a constant texture says so in its metadata") {
    test::TempDir dir("tx");
    const fs::path src = dir / "c.tif", tx = dir / "c.tx";
    REQUIRE(test::run_process({"/usr/bin/oiiotool", "--pattern", "constant:color=0.2,0.4,0.6", "64x64", "3", "-d",
                               "uint8", "-o", src.string()})
                .exit_code == 0);
    REQUIRE(test::run_process({"/usr/bin/maketx", src.string(), "-o", tx.string()}).exit_code == 0);
    auto file = TxFile::open(tx);
    REQUIRE(file);
    REQUIRE((*file)->info().constant_color);
    CHECK((*(*file)->info().constant_color)[1] == doctest::Approx(0.4f));
  }

  TEST_CASE("broken or unsupported files are clear errors naming the file") {
    test::TempDir dir("tx");
    const fs::path good = make_tx(dir, "good", 200, 100, 3);
    std::string bytes;
    {
      std::ifstream in(good, std::ios::binary);
      bytes.assign((std::istreambuf_iterator<char>(in)), {});
    }
    SUBCASE("not a TIFF") {
      std::ofstream(dir / "text.tx") << "hello, not an image";
      auto r = TxFile::open(dir / "text.tx");
      REQUIRE_FALSE(r);
      CHECK(r.error().message.rfind((dir / "text.tx").string() + ": not a .tx file (not a TIFF)", 0) == 0);
    }
    SUBCASE("a source image named for what it is") {
      fs::copy_file(fs::path(KILN_SOURCE_DIR) / "assets" / "textures" / "brick.png", dir / "brick.tx");
      auto r = TxFile::open(dir / "brick.tx");
      REQUIRE_FALSE(r);
      CHECK_MESSAGE(r.error().message.rfind((dir / "brick.tx").string() + ": not a .tx file (a PNG image)", 0) == 0,
                    r.error().message);
      std::ifstream in(dir / "brick.tx", std::ios::binary);
      const std::string png((std::istreambuf_iterator<char>(in)), {});
      auto m = TxFile::open_memory("in memory", std::as_bytes(std::span(png.data(), png.size())));
      REQUIRE_FALSE(m);
      CHECK(m.error().message.rfind("in memory: not a .tx file (a PNG image)", 0) == 0);
    }

    SUBCASE("missing file") {
      auto r = TxFile::open(dir / "absent.tx");
      REQUIRE_FALSE(r);
      // A plain "no such file", not a TIFF library's message.
      CHECK(r.error().message.find("absent.tx: cannot open texture: No such file or directory") != std::string::npos);
    }
    SUBCASE("untiled TIFF") {
      const fs::path flat = dir / "flat.tif";
      REQUIRE(test::run_process({"/usr/bin/oiiotool", "--pattern", "constant:color=1,0,0", "16x16", "3", "-d", "uint8",
                                 "-o", flat.string()})
                  .exit_code == 0);
      auto r = TxFile::open(flat);
      REQUIRE_FALSE(r);
      CHECK(r.error().message == flat.string() + ": level 0: not tiled (a .tx file stores every level in tiles)");
    }
    SUBCASE("truncated: tiles cut off") {
      std::ofstream(dir / "cut.tx", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
      auto file = TxFile::open(dir / "cut.tx");
      // The directories may sit at the end of the file (then open fails), or the tiles are missing
      // (then reading them fails): either way a clear error, never garbage or a crash.
      if (file) {
        bool any_error = false;
        for (std::size_t level = 0; level < (*file)->info().levels.size(); ++level)
          for (std::uint32_t ty = 0; ty < (*file)->info().levels[level].tiles_y(); ++ty)
            for (std::uint32_t tx = 0; tx < (*file)->info().levels[level].tiles_x(); ++tx)
              if (auto t = (*file)->read_tile_rgba8(level, tx, ty); !t) {
                any_error = true;
                CHECK(t.error().message.find("cut.tx: level " + std::to_string(level) + " tile") != std::string::npos);
              }
        CHECK(any_error);
      } else {
        CHECK(file.error().message.find("cut.tx") != std::string::npos);
      }
    }
    SUBCASE("missing levels: a chain that stops before 1x1") {
      const fs::path partial = dir / "partial.tx";
      TIFF* tif = TIFFOpen(partial.c_str(), "w");
      REQUIRE(tif);
      std::vector<std::uint8_t> tile(64 * 64 * 3, 128);
      for (std::uint32_t size : {128u, 64u}) {  // levels 0 and 1 of 8
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, size);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, size);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 3);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, 64);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, 64);
        for (std::uint32_t y = 0; y < size; y += 64)
          for (std::uint32_t x = 0; x < size; x += 64) REQUIRE(TIFFWriteTile(tif, tile.data(), x, y, 0, 0) >= 0);
        REQUIRE(TIFFWriteDirectory(tif));
      }
      TIFFClose(tif);
      auto r = TxFile::open(partial);
      REQUIRE_FALSE(r);
      CHECK(r.error().message == partial.string() + ": missing levels: the mip chain ends at 64x64, not 1x1");
    }
    SUBCASE("a tile outside the grid") {
      auto file = TxFile::open(good);
      REQUIRE(file);
      auto r = (*file)->read_tile_rgba8(0, 99, 0);
      REQUIRE_FALSE(r);
      CHECK(r.error().message == good.string() + ": level 0 has no tile 99,0");
      // Just past the right and the bottom edge of every level: no tile (not the next row's first
      // tile, not past the offsets), while the last tile inside reads.
      for (std::size_t level = 0; level < (*file)->info().levels.size(); ++level) {
        const auto& l = (*file)->info().levels[level];
        CAPTURE(level);
        CHECK((*file)->read_tile_rgba8(level, l.tiles_x() - 1, l.tiles_y() - 1));
        auto right = (*file)->read_tile_rgba8(level, l.tiles_x(), 0);
        REQUIRE_FALSE(right);
        CHECK(right.error().message.find("has no tile") != std::string::npos);
        auto below = (*file)->read_tile_rgba8(level, 0, l.tiles_y());
        REQUIRE_FALSE(below);
        CHECK(below.error().message.find("has no tile") != std::string::npos);
        CHECK_FALSE((*file)->read_tile_rgba8(level, l.tiles_x(), l.tiles_y() - 1));
      }
    }
  }
}
