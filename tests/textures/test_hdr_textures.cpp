// HDR sources (EXR, .hdr) become half-float .tx files with a float mip chain, read back at their
// values by OpenImageIO and Kiln, and shipped and uploaded as RGBA16F.
#include <doctest/doctest.h>

#include "../../engine/textures/src/mip_chain.h"

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/textures/tx_file.h"
#include "lavapipe.h"
#include "oiio_oracle.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("textures") {
  TEST_CASE("float_to_half rounds to nearest even and keeps what half_to_float reads") {
    for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f, 0.333251953125f})
      CHECK(textures::half_to_float(textures::float_to_half(v)) == v);
    CHECK(textures::float_to_half(65520.0f) == 0x7c00);  // past the largest half: infinity
    CHECK(textures::float_to_half(1.0f + 1.0f / 2048.0f) == textures::float_to_half(1.0f));  // a tie to even
    CHECK(textures::float_to_half(1.0f + 3.0f / 2048.0f) == textures::float_to_half(1.0f + 2.0f / 1024.0f));
    CHECK(textures::float_to_half(2.98e-08f) == 0);  // below half the smallest subnormal
    CHECK(std::isnan(textures::half_to_float(textures::float_to_half(NAN))));
    // Every half survives the round trip.
    for (std::uint32_t bits = 0; bits < 0x7c00; ++bits)
      REQUIRE(textures::float_to_half(textures::half_to_float(std::uint16_t(bits))) == bits);
  }

  TEST_CASE("an EXR source becomes a half-float .tx that keeps values above one") {
    test::TempDir dir("hdr");
    const fs::path exr = dir / "sun.exr";
    auto r = test::run_process({"/usr/bin/oiiotool", "--pattern", "fill:left=0.25,0.5,1:right=16,8,2", "40x24", "3",
                                "-d", "half", "-o", exr.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const fs::path tx = dir / "sun.tx";
    // A project whose one material samples it, cooked; the .tx taken back out of the set.
    const fs::path project = dir / "project";
    fs::create_directories(project / "materials");
    fs::create_directories(project / "shaders");
    fs::create_directories(project / "textures");
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets" / "shaders", project / "shaders",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    fs::copy(exr, project / "textures" / "sun.exr");
    std::ofstream(project / "materials" / "sky.json")
        << R"({"shader": "shaders/unlit", "keywords": ["FOG"], "params": {"color": [1, 1, 1, 1]},)"
        << R"( "textures": {"main_texture": "textures/sun.exr"}})";
    r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                           (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    r = test::run_process({KILN_CLI, "texture", "extract", (dir / "out").string(), "textures/sun.exr", tx.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    auto file = textures::TxFile::open(tx);
    REQUIRE(file);
    const auto& info = (*file)->info();
    CHECK(info.is_float);
    CHECK(info.bits_per_sample == 16);
    CHECK(info.color_space == "linear");
    CHECK(info.levels.size() == 6);
    // Level 0 as OpenImageIO reads both files: the .tx holds the EXR's values, above one included.
    const test::FloatPixels source = test::oiio_read_rgba(exr), stored = test::oiio_read_rgba(tx);
    REQUIRE(source.rgba.size() == stored.rgba.size());
    float brightest = 0, worst = 0;
    for (std::size_t i = 0; i < source.rgba.size(); ++i) {
      brightest = std::max(brightest, stored.rgba[i]);
      worst = std::max(worst, std::abs(source.rgba[i] - stored.rgba[i]));
    }
    CHECK(brightest > 15.0f);
    CHECK(worst == 0.0f);
    // The last level is the average of the whole image, in floats.
    auto last = (*file)->read_tile_rgba(info.levels.size() - 1, 0, 0);
    REQUIRE(last);
    double mean = 0;
    for (std::size_t p = 0; p < source.rgba.size(); p += 4) mean += source.rgba[p];
    mean /= double(source.rgba.size() / 4);
    CHECK((*last)[0] == doctest::Approx(mean).epsilon(0.01));

    // A target that ships block-compressed textures keeps HDR as half floats.
    std::ofstream(project / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.0", "textures": "bc"}]}})";
    r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "bc").string(), "--json", "--cache-root",
                           (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto cooked = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    CHECK(cooked["textures"]["formats"] == nlohmann::json{{"rgba16f", 1}});

    if (test::lavapipe_icd().empty()) return;
    r = test::run_process({KILN_PLAYER, (dir / "out").string(), "--frames", "1", "--require-gpu", "--json",
                           "--cache-root", (dir / "player-cache").string()},
                          test::lavapipe_env());
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto report = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    CHECK(report["gpu"]["textures"]["formats"]["rgba16f"] == 1);
    CHECK(report["gpu"]["validation"]["messages"].empty());
  }
}

TEST_SUITE("textures") {
  TEST_CASE("an HDR mip chain filters premultiplied colour: a transparent texel's colour weighs nothing") {
    // Two texels: a bright red one with alpha 0 beside an opaque blue one.
    textures::Image source;
    source.width = 2;
    source.height = 1;
    source.channels = 4;
    source.pixels.assign(8, 0);
    source.hdr = {16.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f};
    const auto chain = textures::build_float_mip_chain(source, textures::TextureSettings{});
    REQUIRE(chain.size() == 2);
    CHECK(chain[0].values[0] == 0.0f);  // level 0 premultiplied: the red is gone with its alpha
    CHECK(chain[0].values[6] == 1.0f);
    const auto& top = chain[1].values;
    CHECK(top[0] == 0.0f);
    CHECK(top[2] == doctest::Approx(0.5));
    CHECK(top[3] == doctest::Approx(0.5));
  }
}
