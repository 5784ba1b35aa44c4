#include <doctest/doctest.h>
#include <tiffio.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "child_process.h"
#include "kiln/textures/tx_file.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "tx_fixtures.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// `kiln texture export` and `oiiotool --selectmip` of one level, read back by OIIO. A half or float
// file is exported at 16 bits, so the oracle converts to 16 bits too (oiiotool's PNG default is 8).
float export_difference(const test::TempDir& dir, const fs::path& tx, int level, bool deep = false) {
  const fs::path ours = dir / "kiln.png", theirs = dir / "oiio.png";
  auto r = test::run_process({KILN_CLI, "texture", "export", tx.string(), "--level", std::to_string(level),
                              ours.string(), "--cache-root", (dir / "cache").string()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  std::vector<std::string> oracle = {"/usr/bin/oiiotool", tx.string(), "--selectmip", std::to_string(level)};
  if (deep) oracle.insert(oracle.end(), {"-d", "uint16"});
  oracle.insert(oracle.end(), {"-o", theirs.string()});
  r = test::run_process(oracle);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  return test::max_difference_255(test::oiio_read_rgba(ours), test::oiio_read_rgba(theirs));
}

// As export_difference, for several levels of one file: one oiiotool process writes them all.
std::vector<float> export_differences(const test::TempDir& dir, const fs::path& tx, const std::vector<int>& levels,
                                      bool deep) {
  std::vector<std::string> oracle = {"/usr/bin/oiiotool"};
  for (int level : levels) {
    oracle.insert(oracle.end(), {tx.string(), "--selectmip", std::to_string(level)});
    if (deep) oracle.insert(oracle.end(), {"-d", "uint16"});
    oracle.insert(oracle.end(), {"-o", (dir / ("oiio-" + std::to_string(level) + ".png")).string()});
  }
  auto r = test::run_process(oracle);
  REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  std::vector<float> differences;
  for (int level : levels) {
    const fs::path ours = dir / ("kiln-" + std::to_string(level) + ".png");
    r = test::run_process({KILN_CLI, "texture", "export", tx.string(), "--level", std::to_string(level), ours.string(),
                           "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    differences.push_back(test::max_difference_255(
        test::oiio_read_rgba(ours), test::oiio_read_rgba(dir / ("oiio-" + std::to_string(level) + ".png"))));
  }
  return differences;
}

// A tiled TIFF with a full mip chain written through libtiff, 8-bit RGBA, with the ExtraSamples
// tag given (or none): the alpha layouts other tools write.
void write_rgba_tx(const fs::path& path, std::uint32_t size, const std::vector<std::uint8_t>& level0,
                   std::optional<std::uint16_t> extra_sample) {
  TIFF* tif = TIFFOpen(path.c_str(), "w");
  REQUIRE(tif);
  std::vector<std::uint8_t> pixels = level0;
  for (std::uint32_t side = size;; side /= 2) {
    TIFFSetField(tif, TIFFTAG_SUBFILETYPE, side == size ? 0 : FILETYPE_REDUCEDIMAGE);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, side);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, side);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 4);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, 16);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, 16);
    TIFFSetField(tif, TIFFTAG_PIXAR_TEXTUREFORMAT, "Plain Texture");  // what makes OIIO see a mip chain
    if (extra_sample) TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &*extra_sample);
    std::vector<std::uint8_t> tile(16 * 16 * 4, 0);
    for (std::uint32_t y = 0; y < side; ++y)
      for (std::uint32_t x = 0; x < side; ++x)
        for (int c = 0; c < 4; ++c) tile[(y * 16 + x) * 4 + c] = pixels[(y * side + x) * 4 + c];
    REQUIRE(TIFFWriteTile(tif, tile.data(), 0, 0, 0, 0) >= 0);
    REQUIRE(TIFFWriteDirectory(tif));
    if (side == 1) break;
    std::vector<std::uint8_t> half(std::size_t(side / 2) * (side / 2) * 4);  // the top-left texel of each 2x2
    for (std::uint32_t y = 0; y < side / 2; ++y)
      for (std::uint32_t x = 0; x < side / 2; ++x)
        for (int c = 0; c < 4; ++c) half[(y * (side / 2) + x) * 4 + c] = pixels[(2 * y * side + 2 * x) * 4 + c];
    pixels = std::move(half);
  }
  TIFFClose(tif);
}

// 8x8 RGBA with every alpha from opaque down to 1/255: where premultiplying changes most.
std::vector<std::uint8_t> alpha_ramp() {
  std::vector<std::uint8_t> p(8 * 8 * 4);
  for (int i = 0; i < 64; ++i) {
    p[i * 4 + 0] = std::uint8_t(200 - i);
    p[i * 4 + 1] = std::uint8_t(40 + 3 * i);
    p[i * 4 + 2] = std::uint8_t(17 * i % 256);
    p[i * 4 + 3] = std::uint8_t(i == 63 ? 1 : 255 - 4 * i);
  }
  return p;
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("kiln texture export writes what oiiotool writes - for every layout maketx makes") {
    test::TempDir dir("alpha-layouts");
    struct Layout {
      int channels;
      const char* type;
      const char* tile;
    };
    std::vector<Layout> layouts;
    for (int channels : {1, 2, 3, 4})
      for (const char* type : {"uint8", "uint16", "half", "float"}) layouts.push_back({channels, type, "64"});
    layouts.push_back({4, "uint8", "32"});
    layouts.push_back({4, "half", "32"});
    layouts.push_back({2, "uint16", "32"});
    for (const auto& l : layouts) {
      const std::string name = std::to_string(l.channels) + "-" + l.type + "-" + l.tile;
      CAPTURE(name);
      const fs::path tx = test::make_tx(dir, name, 67, 45, l.channels, {"--tile", l.tile, l.tile}, l.type);
      const bool deep = std::string(l.type) == "half" || std::string(l.type) == "float";
      const std::vector<int> levels = {0, 1, 3};
      const std::vector<float> differences = export_differences(dir, tx, levels, deep);
      for (std::size_t i = 0; i < levels.size(); ++i) {
        CAPTURE(levels[i]);
        CHECK(differences[i] <= 1.001f);
      }
    }
  }

  TEST_CASE("the tile cache delivers premultiplied alpha whatever ExtraSamples says the file stores") {
    test::TempDir dir("alpha-kinds");
    const auto straight = alpha_ramp();
    std::vector<std::uint8_t> premultiplied = straight;
    for (std::size_t p = 0; p < premultiplied.size(); p += 4)
      for (int c = 0; c < 3; ++c)
        premultiplied[p + c] = std::uint8_t(std::lround(straight[p + c] * straight[p + 3] / 255.0));

    SUBCASE("associated: delivered as stored - exported straight as oiiotool does") {
      write_rgba_tx(dir / "assoc.tx", 8, premultiplied, EXTRASAMPLE_ASSOCALPHA);
      auto file = textures::TxFile::open(dir / "assoc.tx");
      REQUIRE_MESSAGE(file, file.error().message);
      CHECK((*file)->info().alpha == textures::TxAlpha::kAssociated);
      CHECK(*(*file)->read_tile_rgba8(0, 0, 0) == [&] {
        textures::TileBytes tile(16 * 16 * 4, 0);
        for (int y = 0; y < 8; ++y)
          for (int x = 0; x < 32; ++x) tile[y * 64 + x] = premultiplied[y * 32 + x];
        return tile;
      }());
      CHECK(export_difference(dir, dir / "assoc.tx", 0) <= 1.001f);
    }
    SUBCASE("unassociated: premultiplied on delivery - exported as the straight values stored") {
      write_rgba_tx(dir / "unassoc.tx", 8, straight, EXTRASAMPLE_UNASSALPHA);
      auto file = textures::TxFile::open(dir / "unassoc.tx");
      REQUIRE_MESSAGE(file, file.error().message);
      CHECK((*file)->info().alpha == textures::TxAlpha::kUnassociated);
      const auto tile = *(*file)->read_tile_rgba8(0, 0, 0);
      for (int i = 0; i < 64; ++i)
        for (int c = 0; c < 4; ++c) {
          CAPTURE(i);
          CHECK(tile[((i / 8) * 16 + i % 8) * 4 + c] == premultiplied[i * 4 + c]);
        }
      // The export un-premultiplies at full precision: the stored straight values come back exactly
      // where alpha is not zero.
      auto r = test::run_process({KILN_CLI, "texture", "export", (dir / "unassoc.tx").string(), "--level", "0",
                                  (dir / "u.png").string(), "--cache-root", (dir / "cache").string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      const auto exported = test::oiio_read_rgba(dir / "u.png");
      for (int i = 0; i < 64 * 4; ++i) CHECK(std::lround(exported.rgba[i] * 255) == straight[i]);
    }
    SUBCASE("unspecified: the fourth channel is not alpha - delivered and exported as stored") {
      write_rgba_tx(dir / "unspecified.tx", 8, straight, EXTRASAMPLE_UNSPECIFIED);
      auto file = textures::TxFile::open(dir / "unspecified.tx");
      REQUIRE_MESSAGE(file, file.error().message);
      CHECK((*file)->info().alpha == textures::TxAlpha::kNone);
      const auto tile = *(*file)->read_tile_rgba8(0, 0, 0);
      for (int i = 0; i < 64; ++i)
        for (int c = 0; c < 4; ++c) CHECK(tile[((i / 8) * 16 + i % 8) * 4 + c] == straight[i * 4 + c]);
      // OIIO's reader agrees (its channel list says "channel3", not "A"), but its PNG writer then
      // divides colour by that channel anyway: no oracle here, the values stored are the answer.
      auto r = test::run_process({KILN_CLI, "texture", "export", (dir / "unspecified.tx").string(), "--level", "0",
                                  (dir / "n.png").string(), "--cache-root", (dir / "cache").string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      const auto exported = test::oiio_read_rgba(dir / "n.png");
      for (int i = 0; i < 64 * 4; ++i) CHECK(std::lround(exported.rgba[i] * 255) == straight[i]);
    }
    SUBCASE("no ExtraSamples tag: alpha - associated as OIIO assumes") {
      write_rgba_tx(dir / "untagged.tx", 8, premultiplied, std::nullopt);
      auto file = textures::TxFile::open(dir / "untagged.tx");
      REQUIRE_MESSAGE(file, file.error().message);
      CHECK((*file)->info().alpha == textures::TxAlpha::kAssociated);
      CHECK(export_difference(dir, dir / "untagged.tx", 0) <= 1.001f);
    }
  }
}
