#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "child_process.h"
#include "kiln/textures/image.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("textures") {
  TEST_CASE("a PNG written fast or flushed reads back with the same pixels - in Kiln and in oiiotool") {
    test::TempDir dir("png-write");
    std::mt19937 rng(7);
    textures::Image image{97, 61, 4, std::vector<std::uint8_t>(97 * 61 * 4)};
    for (auto& v : image.pixels) v = std::uint8_t(rng() % 32 * 8);  // compressible, not constant
    const textures::PngWriteOptions ways[] = {
        {}, {.fast = true}, {.fast = true, .durability = Durability::kRenamedOnly}};
    for (const auto& way : ways) {
      const fs::path file = dir / (way.fast ? "fast.png" : "default.png");
      REQUIRE(textures::write_png(image, file, way));
      auto back = textures::read_image(file);
      REQUIRE_MESSAGE(back, back.error().message);
      CHECK(back->width == image.width);
      CHECK(back->height == image.height);
      CHECK(back->pixels == image.pixels);
      const auto info = test::run_process({"/usr/bin/oiiotool", "--info", "-v", file.string()});
      CHECK_MESSAGE(info.exit_code == 0, info.output);
      CHECK(info.output.find("97 x   61, 4 channel, uint8 png") != std::string::npos);
    }
  }

  TEST_CASE("an image whose pixels do not fill its size is refused - nothing is written") {
    test::TempDir dir("png-write");
    textures::Image short_image{8, 8, 4, std::vector<std::uint8_t>(8 * 8 * 4 - 1)};
    const auto refused = textures::write_png(short_image, dir / "short.png");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("short.png: nothing to write") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "short.png"));
  }
}
