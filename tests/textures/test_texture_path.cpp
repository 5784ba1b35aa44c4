#include <doctest/doctest.h>

#include <fstream>

#include "kiln/textures/texture_path.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::textures;
namespace fs = std::filesystem;

TEST_SUITE("textures") {
  TEST_CASE("a source image is read from its .tx when that is not older than the source") {
    test::TempDir dir("paths");
    const fs::path png = dir / "brick.png", tx = dir / "brick.tx", appended = dir / "brick.png.tx";
    std::ofstream(png) << "png";
    CHECK(resolve_texture_path(png).file == png);
    CHECK_FALSE(resolve_texture_path(png).tiled);

    std::ofstream(tx) << "tx";
    const auto t = fs::last_write_time(png);
    fs::last_write_time(tx, t);  // maketx -u stamps the same time: "not older" is enough
    CHECK(resolve_texture_path(png).file == tx);
    CHECK(resolve_texture_path(png).tiled);

    fs::last_write_time(tx, t - std::chrono::seconds(10));  // the source was edited after the .tx
    CHECK(resolve_texture_path(png).file == png);

    std::ofstream(appended) << "tx";
    fs::last_write_time(appended, t + std::chrono::seconds(1));
    CHECK(resolve_texture_path(png).file == appended);

    CHECK(resolve_texture_path(tx).file == tx);  // a .tx named directly is itself
  }
}
