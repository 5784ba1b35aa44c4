#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "kiln/textures/tx_file.h"
#include "kiln/textures/tx_writer.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "test_files.h"
#include "tx_fixtures.h"

using namespace kiln;
using namespace kiln::textures;
namespace fs = std::filesystem;

namespace {

Image random_image(std::uint32_t w, std::uint32_t h, int channels, unsigned seed) {
  std::mt19937 rng(seed);
  Image image{w, h, channels, std::vector<std::uint8_t>(std::size_t(w) * h * channels)};
  // Smooth enough to compress, noisy enough that a wrong byte shows.
  for (std::size_t i = 0; i < image.pixels.size(); ++i)
    image.pixels[i] = std::uint8_t((i / channels) % image.width + (rng() & 15));
  return image;
}

fs::path write(const Image& image, const fs::path& path, TileCompression compression) {
  TxWriteOptions options{.tile_size = 32};
  options.settings.compression = compression;
  REQUIRE(write_tx(image, path, options));
  return path;
}

// Every tile of every level, as delivered.
std::vector<TileBytes> all_tiles(TxFile& file) {
  std::vector<TileBytes> tiles;
  for (std::size_t l = 0; l < file.info().levels.size(); ++l)
    for (std::uint32_t ty = 0; ty < file.info().levels[l].tiles_y(); ++ty)
      for (std::uint32_t tx = 0; tx < file.info().levels[l].tiles_x(); ++tx) {
        auto tile = file.read_tile_rgba8(l, tx, ty);
        REQUIRE_MESSAGE(tile, tile.error().message);
        tiles.push_back(std::move(*tile));
      }
  return tiles;
}

std::unique_ptr<TxFile> open(const fs::path& path) {
  auto file = TxFile::open(path);
  REQUIRE_MESSAGE(file, file.error().message);
  return std::move(*file);
}

// The 4-byte little-endian value `from`, found once in `bytes`, becomes `to`.
void patch_u32(std::string& bytes, std::uint32_t from, std::uint32_t to) {
  const std::string needle(reinterpret_cast<const char*>(&from), 4);
  const auto at = bytes.find(needle);
  REQUIRE(at != std::string::npos);
  REQUIRE(bytes.find(needle, at + 1) == std::string::npos);
  std::memcpy(bytes.data() + at, &to, 4);
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("tiles stored zip zstd or raw deliver the same pixels - and OIIO reads every level as Kiln does") {
    test::TempDir dir("tile-compression");
    for (int channels : {1, 2, 3, 4}) {
      CAPTURE(channels);
      const Image image = random_image(100, 70, channels, unsigned(channels));
      auto zip = open(write(image, dir / "zip.tx", TileCompression::kZip));
      auto zstd = open(write(image, dir / "zstd.tx", TileCompression::kZstd));
      auto raw = open(write(image, dir / "none.tx", TileCompression::kNone));
      CHECK(zip->info().compression == "zip");
      CHECK(zstd->info().compression == "zstd");
      CHECK(raw->info().compression == "none");
      const auto expected = all_tiles(*zip);
      CHECK(all_tiles(*zstd) == expected);
      CHECK(all_tiles(*raw) == expected);
      // Raw tiles copied out of memory and read at an offset into a cache entry: the same.
      const std::string bytes = test::slurp(dir / "none.tx");
      auto in_memory = TxFile::open_memory("none.tx", std::as_bytes(std::span(bytes)));
      REQUIRE_MESSAGE(in_memory, in_memory.error().message);
      CHECK(all_tiles(**in_memory) == expected);
      test::spit(dir / "entry.bin", std::string(24, 'h') + bytes);
      auto at_offset = TxFile::open_at(dir / "entry.bin", 24);
      REQUIRE_MESSAGE(at_offset, at_offset.error().message);
      CHECK(all_tiles(**at_offset) == expected);
      // OIIO, through its own libtiff reads, sees the same levels in each file (RGBA8 as stored:
      // Kiln stores colour premultiplied and delivers it so).
      for (const char* name : {"zstd.tx", "none.tx"}) {
        CAPTURE(name);
        auto file = open(dir / name);
        for (std::size_t l = 0; l < file->info().levels.size(); ++l) {
          const TxLevel& level = file->info().levels[l];
          const Image oracle = test::oiio_read_level(dir / name, int(l));
          REQUIRE(oracle.width == level.width);
          std::size_t differing = 0;
          for (std::uint32_t ty = 0; ty < level.tiles_y(); ++ty)
            for (std::uint32_t tx = 0; tx < level.tiles_x(); ++tx) {
              auto tile = file->read_tile_rgba8(l, tx, ty);
              REQUIRE(tile);
              for (std::uint32_t y = ty * 32; y < std::min(level.height, ty * 32 + 32); ++y)
                for (std::uint32_t x = tx * 32; x < std::min(level.width, tx * 32 + 32); ++x)
                  differing += std::memcmp(&(*tile)[((y - ty * 32) * 32 + (x - tx * 32)) * 4], oracle.at(x, y), 4) != 0;
            }
          CHECK_MESSAGE(differing == 0, "level " << l);
        }
      }
    }
    // Raw tiles hold the pixels themselves: larger than zip's on smooth content.
    CHECK(fs::file_size(dir / "none.tx") > fs::file_size(dir / "zip.tx"));
  }

  TEST_CASE("raw tiles of 16-bit half and float files made by maketx read as OIIO reads them") {
    test::TempDir dir("tile-compression-deep");
    for (const std::string type : {"uint16", "half", "float"}) {
      CAPTURE(type);
      const fs::path tx = test::make_tx(dir, type, 67, 45, 4, {"--compression", "none", "--tile", "32", "32"}, type);
      auto file = open(tx);
      REQUIRE(file->info().compression == "none");
      const test::FloatPixels oracle = test::oiio_read_rgba(tx, 0);
      double worst = 0;
      for (std::uint32_t ty = 0; ty < file->info().levels[0].tiles_y(); ++ty)
        for (std::uint32_t tx_ = 0; tx_ < file->info().levels[0].tiles_x(); ++tx_) {
          auto tile = file->read_tile_rgba(0, tx_, ty);
          REQUIRE_MESSAGE(tile, tile.error().message);
          for (std::uint32_t y = ty * 32; y < std::min(45u, ty * 32 + 32); ++y)
            for (std::uint32_t x = tx_ * 32; x < std::min(67u, tx_ * 32 + 32); ++x)
              for (int c = 0; c < 4; ++c)
                worst = std::max(worst, double(std::fabs((*tile)[((y - ty * 32) * 32 + (x - tx_ * 32)) * 4 + c] -
                                                         oracle.rgba[(std::size_t(y) * 67 + x) * 4 + c])));
        }
      CHECK(worst <= 1e-6);  // 16-bit integers: v / 65535 in float, rounded alike to within an ulp
    }
  }

  TEST_CASE("a raw tile whose offset points past the end of the file is an error naming the tile") {
    test::TempDir dir("tile-compression-broken");
    const Image image = random_image(64, 64, 4, 9);
    write(image, dir / "none.tx", TileCompression::kNone);
    std::string bytes = test::slurp(dir / "none.tx");
    // Level 0's four tiles of 32x32 RGBA8 follow the 8-byte header: offsets 8, 4104, 8200, 12296.
    patch_u32(bytes, 12296, std::uint32_t(bytes.size() - 100));
    test::spit(dir / "broken.tx", bytes);
    auto file = open(dir / "broken.tx");
    CHECK(file->read_tile_rgba8(0, 0, 0));
    auto tile = file->read_tile_rgba8(0, 1, 1);
    REQUIRE_FALSE(tile);
    CHECK(tile.error().message.find("broken.tx: level 0 tile 1,1: the file ends inside the tile") != std::string::npos);
    auto in_memory = TxFile::open_memory("broken.tx", std::as_bytes(std::span(bytes)));
    REQUIRE_MESSAGE(in_memory, in_memory.error().message);
    auto from_memory = (*in_memory)->read_tile_rgba8(0, 1, 1);
    REQUIRE_FALSE(from_memory);
    CHECK(from_memory.error().message.find("broken.tx: level 0 tile 1,1: the data ends inside the tile") !=
          std::string::npos);
  }
}
