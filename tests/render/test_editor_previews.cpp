#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "editor_process.h"
#include "kiln/textures/image.h"
#include "lavapipe.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// The centre of a preview, 8-bit.
std::array<int, 3> centre(const fs::path& picture) {
  const auto image = test::oiio_read_rgba(picture);
  const float* p = &image.rgba[(std::size_t(image.height / 2) * image.width + image.width / 2) * 4];
  return {int(std::lround(p[0] * 255)), int(std::lround(p[1] * 255)), int(std::lround(p[2] * 255))};
}

// The pictures a change asked for, as the editor says them: each `preview` event (material ->
// picture) until the change's `previews` event, which lists the same pictures.
std::map<std::string, fs::path> pictures_of(test::EditorProcess& editor, const std::string& change) {
  std::map<std::string, fs::path> pictures;
  for (;;) {
    auto e = editor.next();
    if (e["event"] == "preview") {
      CHECK(e["change"] == change);
      CHECK(e["preview_validated"] == true);
      CHECK(e["pixels_ms"].get<double>() > 0);
      pictures[e["file"].get<std::string>()] = e["preview"].get<std::string>();
      continue;
    }
    REQUIRE_MESSAGE(e["event"] == "previews", e.dump());
    CHECK(e["change"] == change);
    CHECK(e["previews"].size() == pictures.size());
    for (const auto& picture : e["previews"]) {
      bool announced = false;
      for (const auto& [material, path] : pictures) announced = announced || path == picture.get<std::string>();
      CHECK_MESSAGE(announced, picture);
    }
    CHECK(e["first_pixels_ms"].get<double>() <= e["all_pixels_ms"].get<double>());
    return pictures;
  }
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("kiln editor --previews renders a material's preview again after each edit and names it in the event") {
    test::TempDir dir("editor-previews");
    const fs::path project = test::copy_assets(dir);
    test::EditorProcess editor(
        {KILN_CLI, "editor", project.string(), "--json", "--previews", "--cache-root", (dir / "cache").string()},
        test::lavapipe_env());
    const auto ready = editor.next();
    REQUIRE(ready["event"] == "ready");
    // Every material but the post-process one has its picture from the start.
    CHECK(ready["previewing"].size() == 8);
    CHECK(pictures_of(editor, "ready").size() == 7);
    const std::string panel = R"({"shader": "shaders/unlit", "keywords": ["VERTEX_COLOR"], "params": {"color": )";
    test::write_in_place(project / "materials/ui_panel.json",
                         panel + R"([1.0, 0.1, 0.1, 1.0]}, "textures": {"main_texture": "textures/white.png"}})");
    auto e = editor.next();
    REQUIRE(e["event"] == "material");
    CHECK(e["previewing"] == nlohmann::json::array({"materials/ui_panel.json"}));
    auto pictures = pictures_of(editor, "material");
    REQUIRE(pictures.count("materials/ui_panel.json"));
    const fs::path picture = pictures["materials/ui_panel.json"];
    CHECK(picture.filename() == "ui_panel.png");
    auto red = centre(picture);
    CHECK(red[0] > 200);
    CHECK(red[1] < 120);
    // The same material edited again: the same file, the new colour.
    test::write_in_place(project / "materials/ui_panel.json",
                         panel + R"([0.1, 1.0, 0.1, 1.0]}, "textures": {"main_texture": "textures/white.png"}})");
    REQUIRE(editor.next()["event"] == "material");
    CHECK(pictures_of(editor, "material")["materials/ui_panel.json"] == picture);
    auto green = centre(picture);
    CHECK(green[1] > 200);
    CHECK(green[0] < 120);

    // An edit of the texture it uses renders it again: white becomes a dark grey.
    textures::Image grey{8, 8, 3, std::vector<std::uint8_t>(8 * 8 * 3, 40)};
    REQUIRE(textures::write_png(grey, dir / "grey.png"));
    fs::rename(dir / "grey.png", project / "textures/white.png");
    e = editor.next();
    REQUIRE(e["event"] == "texture");
    CHECK(e["previewing"] == nlohmann::json::array({"materials/metal.json", "materials/ui_panel.json"}));
    CHECK(pictures_of(editor, "texture")["materials/ui_panel.json"] == picture);
    CHECK(centre(picture)[1] < green[1] / 2);
    // And so does an edit of its shader (a comment: the same picture, rendered again).
    std::ofstream(project / "shaders/unlit.frag", std::ios::app) << "// edited\n";
    e = editor.next();
    REQUIRE(e["event"] == "shader");
    CHECK(pictures_of(editor, "shader")["materials/ui_panel.json"] == picture);
  }
}
