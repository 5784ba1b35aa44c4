// What TxFile::open refuses in a .tx's structure before reading a pixel: sides over the limit,
// levels that are not halves of the one before, and a mip chain that stops before 1x1 (maketx's
// always ends there: a shorter one lost levels). Hand-made TIFFs (support/tiff_craft.h) give
// sizes and chains no real tool writes.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/core/input_limits.h"
#include "kiln/textures/tx_file.h"
#include "temp_dir.h"
#include "tiff_craft.h"

using namespace kiln;
using namespace kiln::textures;
namespace fs = std::filesystem;

namespace {

std::string open_error(const fs::path& file) {
  auto opened = TxFile::open(file);
  return opened ? std::string("(opened)") : opened.error().message;
}

}  // namespace

TEST_SUITE("textures") {
  TEST_CASE("a .tx level wider or taller than the side limit is refused - one at the limit opens") {
    test::TempDir dir("txstructure");
    const fs::path wide = dir / "wide.tx", tall = dir / "tall.tx", at = dir / "at.tx";
    const std::uint32_t side = limits::kImageSide;
    test::write_crafted_tiff(wide, test::crafted_chain(side + 1, 1, 4096, 16));
    test::write_crafted_tiff(tall, test::crafted_chain(1, side * 2, 16, 4096));
    test::write_crafted_tiff(at, test::crafted_chain(side, 1, 4096, 16));
    CHECK(open_error(wide) == wide.string() + ": level 0: 65537x1 is larger than the limit of 65536 pixels per side");
    CHECK(open_error(tall) == tall.string() + ": level 0: 1x131072 is larger than the limit of 65536 pixels per side");
    CHECK(open_error(at) == "(opened)");
  }

  TEST_CASE("a .tx whose levels do not halve or whose chain stops before 1x1 is refused naming the level") {
    test::TempDir dir("txstructure");
    // 64x64, then 16x16: a level is missing in the middle.
    std::vector<test::CraftedLevel> skipped = test::crafted_chain(64, 64, 16, 16);
    skipped.erase(skipped.begin() + 1);
    test::write_crafted_tiff(dir / "skipped.tx", skipped);
    CHECK(open_error(dir / "skipped.tx") ==
          (dir / "skipped.tx").string() + ": level 1: 16x16 is not half of the previous level (64x64)");
    // Halving one side only: 64x64 then 32x64.
    std::vector<test::CraftedLevel> one_side = {{64, 64, 16, 16}, {32, 64, 16, 16}};
    test::write_crafted_tiff(dir / "one_side.tx", one_side);
    CHECK(open_error(dir / "one_side.tx") ==
          (dir / "one_side.tx").string() + ": level 1: 32x64 is not half of the previous level (64x64)");
    // Chains cut short: at 4x4, and at 8x1 (one side already at 1, the other not).
    for (const auto& [width, height, ends] :
         {std::tuple{64u, 64u, std::string("4x4")}, std::tuple{64u, 8u, std::string("8x1")}}) {
      std::vector<test::CraftedLevel> chain = test::crafted_chain(width, height, 16, 16);
      while (std::to_string(chain.back().width) + "x" + std::to_string(chain.back().height) != ends) chain.pop_back();
      const fs::path file = dir / ("short_" + ends + ".tx");
      test::write_crafted_tiff(file, chain);
      CHECK(open_error(file) == file.string() + ": missing levels: the mip chain ends at " + ends + ", not 1x1");
    }
    test::write_crafted_tiff(dir / "whole.tx", test::crafted_chain(64, 8, 16, 16));
    CHECK(open_error(dir / "whole.tx") == "(opened)");
  }
}
