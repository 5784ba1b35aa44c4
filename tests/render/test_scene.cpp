#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/textures/image.h"
#include "kiln/textures/texture_settings.h"
#include "lavapipe.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// A project: the sample assets and a probe material, unlit, a constant texture tinted by known values.
struct ProbeProject {
  test::TempDir dir{"render-scene"};
  fs::path project = test::copy_assets(dir);
  ProbeProject() {
    textures::Image probe{16, 16, 3, {}};
    for (int i = 0; i < 16 * 16; ++i) probe.pixels.insert(probe.pixels.end(), {200, 100, 50});
    REQUIRE(textures::write_png(probe, project / "textures/probe.png"));
    std::ofstream(project / "materials/probe.json")
        << R"({"shader": "shaders/unlit", "keywords": [], "params": {"color": [0.5, 1.0, 1.0, 1.0]},)"
        << R"( "textures": {"main_texture": "textures/probe.png"}})";
    // From the second frame on, a script takes the red out of the probe's tint.
    std::ofstream(project / "scripts/probe_pulse.lua") << "function frame(t)\n"
                                                          "  if t > 0 then engine.probe_color(0, 1, 1, 1) end\n"
                                                          "end\n";
    auto cooked = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(),
                                     "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
  }
  nlohmann::json play(int frames) {
    auto played = test::run_process(
        {KILN_PLAYER, (dir / "out").string(), "--json", "--validate", "--frames", std::to_string(frames), "--render",
         (dir / "pictures").string(), "--cache-root", (dir / "player-cache").string()},
        test::lavapipe_env());
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    return nlohmann::json::parse(played.output.substr(played.output.find('{')));
  }
};

// 8-bit values of pixel (x, y).
std::array<int, 4> pixel(const test::FloatPixels& image, int x, int y) {
  const float* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
  return {int(std::lround(p[0] * 255)), int(std::lround(p[1] * 255)), int(std::lround(p[2] * 255)),
          int(std::lround(p[3] * 255))};
}

double mean_difference(const test::FloatPixels& a, const test::FloatPixels& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.rgba.size(); ++i) sum += std::fabs(a.rgba[i] - b.rgba[i]) * 255;
  return sum / double(a.rgba.size());
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("a script's parameter change shows in the next frame's pixels") {
    ProbeProject p;
    auto report = p.play(1);  // frame(0): the tint as cooked
    auto probe = test::oiio_read_rgba(p.dir / "pictures/materials/probe.png");
    const int cooked_red = pixel(probe, 128, 128)[0];
    CHECK(cooked_red > 40);
    report = p.play(2);  // frame(1/60) sets the tint's red to 0 before the second frame is drawn
    probe = test::oiio_read_rgba(p.dir / "pictures/materials/probe.png");
    CHECK(pixel(probe, 128, 128)[0] == 0);
    CHECK(std::abs(pixel(probe, 128, 128)[1] - 100) <= 1);
    CHECK(std::abs(pixel(probe, 128, 128)[2] - 50) <= 1);
    bool found = false;
    for (const auto& s : report["scripts"])
      if (s["script"] == "scripts/probe_pulse.lua") {
        found = true;
        CHECK(s["frames"] == 2);
        CHECK(s["ok"] == true);
      }
    CHECK(found);
  }

  TEST_CASE("kiln cook --previews renders every material into the output - without a device it says so and cooks") {
    ProbeProject p;
    auto env = test::lavapipe_env();
    auto cooked =
        test::run_process({KILN_CLI, "cook", p.project.string(), "--out", (p.dir / "out").string(), "--cache-root",
                           (p.dir / "cache").string(), "--previews", "--report", (p.dir / "report.json").string()},
                          env);
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);
    const auto report = nlohmann::json::parse(test::slurp(p.dir / "report.json"));
    REQUIRE(report["previews"].contains("files"));
    CHECK(report["previews"]["validated"] == true);
    CHECK(report["previews"]["files"].size() == 8);
    for (const auto& file : report["previews"]["files"]) CHECK(fs::exists(p.dir / "out" / file.get<std::string>()));
    // The same picture the player renders of the first frame.
    p.play(1);
    const auto preview = test::oiio_read_rgba(p.dir / "out/previews/materials/probe.png");
    const auto played = test::oiio_read_rgba(p.dir / "pictures/materials/probe.png");
    CHECK(pixel(preview, 128, 128) == pixel(played, 128, 128));
    CHECK(mean_difference(preview, played) < 0.01);

    const std::map<std::string, std::string> none = {{"VK_ICD_FILENAMES", (p.dir / "no-driver.json").string()},
                                                     {"VK_DRIVER_FILES", (p.dir / "no-driver.json").string()}};
    cooked = test::run_process({KILN_CLI, "cook", p.project.string(), "--out", (p.dir / "out").string(), "--cache-root",
                                (p.dir / "cache").string(), "--previews"},
                               none);
    CHECK_MESSAGE(cooked.exit_code == 0, cooked.output);
    CHECK(cooked.output.find("cook: previews skipped: no Vulkan driver") != std::string::npos);

    // Validation asked for and the layer missing: the previews fail, so the cook does; the packs stay.
    env["VK_LAYER_PATH"] = (p.dir / "no-layers").string();
    fs::remove_all(p.dir / "out");
    cooked = test::run_process({KILN_CLI, "cook", p.project.string(), "--out", (p.dir / "out").string(), "--cache-root",
                                (p.dir / "cache").string(), "--previews", "--report", (p.dir / "report.json").string()},
                               env);
    CHECK_MESSAGE(cooked.exit_code == 1, cooked.output);
    CHECK_MESSAGE(
        cooked.output.find("cook: previews failed: VK_LAYER_KHRONOS_validation is not installed") != std::string::npos,
        cooked.output);
    CHECK(fs::exists(p.dir / "out/manifest.json"));
    CHECK(nlohmann::json::parse(test::slurp(p.dir / "report.json"))["previews"].contains("failed"));
  }

  TEST_CASE("a script calling an engine function no material has is a cook error naming it") {
    test::TempDir dir("render-script-api");
    const fs::path project = test::copy_assets(dir);
    std::ofstream(project / "scripts/typo.lua") << "function frame(t)\n  engine.ui_panel_colr(1, 1, 1, 1)\nend\n";
    auto cooked = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(),
                                     "--cache-root", (dir / "cache").string()});
    CHECK(cooked.exit_code == 1);
    CHECK_MESSAGE(cooked.output.find("scripts/typo.lua:2") != std::string::npos, cooked.output);
    CHECK(cooked.output.find("engine.ui_panel_colr") != std::string::npos);
    // Wrong arity is one too: the material gives color four components.
    std::ofstream(project / "scripts/typo.lua", std::ios::trunc)
        << "function frame(t)\n  engine.ui_panel_color(1, 1)\nend\n";
    cooked = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                                (dir / "cache").string()});
    CHECK(cooked.exit_code == 1);
    CHECK_MESSAGE(cooked.output.find("engine.ui_panel_color takes 4 arguments") != std::string::npos, cooked.output);
  }

  TEST_CASE("a constant texture with known parameters renders the expected colour at known pixels") {
    ProbeProject p;
    const auto report = p.play(1);
    REQUIRE(report["gpu"]["available"] == true);
    CHECK(report["gpu"]["frames"]["count"] == 1);
    CHECK(report["gpu"]["validation"]["on"] == true);
    CHECK(report["gpu"]["validation"]["messages"].empty());
    const auto probe = test::oiio_read_rgba(p.dir / "pictures/materials/probe.png");
    REQUIRE(probe.width == 256);
    // The sRGB texel is decoded to linear, tinted, and the picture encoded back to sRGB.
    const auto expected = [](int srgb, double tint) {
      return int(
          std::lround(255 * textures::linear_to_srgb(float(textures::srgb_to_linear(float(srgb / 255.0)) * tint))));
    };
    for (const auto& [x, y] : {std::pair{128, 128}, {100, 150}, {160, 90}}) {
      const int px = x, py = y;  // lambdas (CAPTURE) cannot name a binding in clang 14
      CAPTURE(px);
      CAPTURE(py);
      const auto got = pixel(probe, x, y);
      CHECK(std::abs(got[0] - expected(200, 0.5)) <= 1);
      CHECK(std::abs(got[1] - 100) <= 1);
      CHECK(std::abs(got[2] - 50) <= 1);
    }
    // Outside the sphere: the cleared background.
    CHECK(pixel(probe, 3, 3) == std::array<int, 4>{0, 0, 0, 255});
    CHECK(pixel(probe, 252, 128) == std::array<int, 4>{0, 0, 0, 255});
  }

  TEST_CASE("every sample material's preview is non-empty and differs from the others - the frame holds them all") {
    ProbeProject p;
    const auto report = p.play(2);
    std::vector<std::string> pictures = report["gpu"]["pictures"];
    REQUIRE(pictures.back() == "frame.png");
    pictures.pop_back();
    CHECK(pictures.size() == 8);  // the sample's seven drawn materials and the probe; bloom is a compute pass
    std::vector<test::FloatPixels> images;
    for (const std::string& name : pictures) {
      CAPTURE(name);
      images.push_back(test::oiio_read_rgba(p.dir / "pictures" / name));
      std::size_t lit = 0;
      for (std::size_t i = 0; i < images.back().rgba.size(); i += 4)
        lit += images.back().rgba[i] + images.back().rgba[i + 1] + images.back().rgba[i + 2] > 0.02f;
      CHECK(lit > 256 * 256 / 200);  // at least half a percent of the view shows the material
    }
    for (std::size_t i = 0; i < images.size(); ++i)
      for (std::size_t j = i + 1; j < images.size(); ++j) {
        CAPTURE(pictures[i]);
        CAPTURE(pictures[j]);
        CHECK(mean_difference(images[i], images[j]) > 0.5);
      }
    // The frame: the views in a grid, row by row, in the order of the pictures (3 columns for 8).
    const auto frame = test::oiio_read_rgba(p.dir / "pictures/frame.png");
    CHECK(frame.width == 3 * 256);
    CHECK(frame.height == 3 * 256);
    for (std::size_t i = 0; i < images.size(); ++i) {
      const int x0 = int(i % 3) * 256, y0 = int(i / 3) * 256;
      CAPTURE(pictures[i]);
      CHECK(pixel(frame, x0 + 128, y0 + 128) == pixel(images[i], 128, 128));
    }
    CHECK(report["gpu"]["frames"]["mean_ms"].get<double>() > 0);
  }

  TEST_CASE("each sample material's preview is a whole shaded sphere - no black region and no seam or streak") {
    ProbeProject p;
    (void)p.play(1);
    // The sphere (radius 1, 3 units from a camera with a 0.8 rad field of view) covers a disc of
    // about 107 pixels' radius; inside 100 pixels every texel is the material's.
    for (const std::string name : {"brick", "brick_foggy", "character", "foliage", "metal", "sky", "ui_panel"}) {
      CAPTURE(name);
      const auto image = test::oiio_read_rgba(p.dir / "pictures/materials" / (name + ".png"));
      REQUIRE(image.width == 256);
      const auto at = [&](int x, int y, int c) { return image.rgba[(std::size_t(y) * 256 + x) * 4 + c]; };
      const auto inside = [](int x, int y) { return (x - 128) * (x - 128) + (y - 128) * (y - 128) < 100 * 100; };
      // Lit everywhere: the sky and the ground light what the lights do not reach.
      float darkest = 3;
      for (int y = 0; y < 256; ++y)
        for (int x = 0; x < 256; ++x)
          if (inside(x, y)) darkest = std::min(darkest, at(x, y, 0) + at(x, y, 1) + at(x, y, 2));
      CHECK_MESSAGE(darkest > 0.1f, "darkest " << darkest);
      // Smooth materials change gradually: a seam or a streak is a jump between neighbours.
      if (name == "brick" || name == "brick_foggy" || name == "character")
        continue;  // their textures have edges of their own
      float jump = 0;
      for (int y = 1; y < 256; ++y)
        for (int x = 1; x < 256; ++x)
          if (inside(x, y) && inside(x - 1, y - 1))
            for (int c = 0; c < 3; ++c)
              jump =
                  std::max({jump, std::fabs(at(x, y, c) - at(x - 1, y, c)), std::fabs(at(x, y, c) - at(x, y - 1, c))});
      CHECK_MESSAGE(jump < 0.1f, "largest step between neighbours " << jump);
    }
  }
}
