#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

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

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("kiln editor --previews renders a material's preview again after each edit and names it in the event") {
    test::TempDir dir("editor-previews");
    const fs::path project = test::copy_assets(dir);
    test::EditorProcess editor(
        {KILN_CLI, "editor", project.string(), "--json", "--previews", "--cache-root", (dir / "cache").string()},
        test::lavapipe_env());
    REQUIRE(editor.next()["event"] == "ready");
    const std::string panel = R"({"shader": "shaders/unlit", "keywords": ["VERTEX_COLOR"], "params": {"color": )";
    test::write_in_place(project / "materials/ui_panel.json",
                         panel + R"([1.0, 0.1, 0.1, 1.0]}, "textures": {"main_texture": "textures/white.png"}})");
    auto e = editor.next();
    REQUIRE(e["event"] == "material");
    REQUIRE_MESSAGE(e.contains("preview"), e.dump());
    CHECK(e["preview_validated"] == true);
    const fs::path picture = e["preview"].get<std::string>();
    CHECK(picture.filename() == "ui_panel.png");
    auto red = centre(picture);
    CHECK(red[0] > 200);
    CHECK(red[1] < 120);
    // The same material edited again: the same file, the new colour.
    test::write_in_place(project / "materials/ui_panel.json",
                         panel + R"([0.1, 1.0, 0.1, 1.0]}, "textures": {"main_texture": "textures/white.png"}})");
    e = editor.next();
    REQUIRE(e["event"] == "material");
    CHECK(e["preview"] == picture.string());
    auto green = centre(picture);
    CHECK(green[1] > 200);
    CHECK(green[0] < 120);

    // An edit of the texture it uses renders it again: white becomes a dark grey.
    textures::Image grey{8, 8, 3, std::vector<std::uint8_t>(8 * 8 * 3, 40)};
    REQUIRE(textures::write_png(grey, dir / "grey.png"));
    fs::rename(dir / "grey.png", project / "textures/white.png");
    e = editor.next();
    REQUIRE(e["event"] == "texture");
    REQUIRE_MESSAGE(e.contains("previews"), e.dump());
    bool listed = false;
    for (const auto& p : e["previews"]) listed = listed || p == picture.string();
    CHECK(listed);
    CHECK(centre(picture)[1] < green[1] / 2);
    // And so does an edit of its shader (a comment: the same picture, rendered again).
    std::ofstream(project / "shaders/unlit.frag", std::ios::app) << "// edited\n";
    e = editor.next();
    REQUIRE(e["event"] == "shader");
    listed = false;
    for (const auto& p : e["previews"]) listed = listed || p == picture.string();
    CHECK(listed);
  }
}
