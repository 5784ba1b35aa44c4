// The editor and the cook read a project through one project model: what the cook refuses, the
// editor refuses, in the same words.

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "editor_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// The cook's error lines about `file` (its output names files relative to the project).
std::vector<std::string> cook_errors_about(const fs::path& project, const fs::path& dir, const std::string& file) {
  const auto cooked = test::run_process(
      {KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root", (dir / "cache").string()});
  CHECK_MESSAGE(cooked.exit_code == 1, cooked.output);
  std::vector<std::string> lines;
  std::istringstream in(cooked.output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(file + ":", 0) == 0) lines.push_back(line);
  return lines;
}

bool has(const nlohmann::json& list, const std::string& text) {
  for (const auto& e : list)
    if (e == text) return true;
  return false;
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("the editor refuses a misspelt material parameter and a short vector in the cook's words") {
    test::TempDir dir("parity");
    const fs::path project = test::copy_assets(dir);
    auto brick = nlohmann::json::parse(test::slurp(project / "materials/brick.json"));
    brick["params"]["base_colr"] = brick["params"]["base_color"];
    brick["params"].erase("base_color");
    test::spit(project / "materials/brick.json", brick.dump());
    const auto misspelt = cook_errors_about(project, dir.path(), "materials/brick.json");
    REQUIRE_MESSAGE(misspelt.size() == 1, misspelt.size());
    CHECK(misspelt[0].find("did you mean 'base_color'?") != std::string::npos);

    test::EditorProcess editor(
        {KILN_CLI, "editor", project.string(), "--json", "--cache-root", (dir / "cache").string()});
    const auto ready = editor.next();
    REQUIRE(ready["event"] == "ready");
    CHECK_MESSAGE(has(ready["errors"], misspelt[0]), ready.dump());

    // An edit: a vec4 given three numbers.
    auto metal = nlohmann::json::parse(test::slurp(project / "materials/metal.json"));
    std::string vector;
    for (const auto& [name, value] : metal["params"].items())
      if (value.is_array() && value.size() == 4) vector = name;
    REQUIRE(!vector.empty());
    metal["params"][vector].erase(3);
    test::write_in_place(project / "materials/metal.json", metal.dump());
    const auto event = editor.next();
    CHECK(event["event"] == "material_error");
    CHECK(event["file"] == "materials/metal.json");
    const auto short_vector = cook_errors_about(project, dir.path(), "materials/metal.json");
    REQUIRE_MESSAGE(short_vector.size() == 1, short_vector.size());
    CHECK(short_vector[0].find("the material gives 3 numbers") != std::string::npos);
    CHECK_MESSAGE(has(event["errors"], short_vector[0]), event.dump());

    // One texture asked for with two settings by two materials: the check across materials.
    test::write_in_place(project / "materials/metal.json",
                         test::slurp(fs::path(KILN_SOURCE_DIR) / "assets/materials/metal.json"));
    CHECK(editor.next()["event"] == "material");
    auto panel = nlohmann::json::parse(test::slurp(project / "materials/ui_panel.json"));
    panel["textures"]["main_texture"] = {{"file", "textures/white.png"}, {"color_space", "linear"}};
    test::write_in_place(project / "materials/ui_panel.json", panel.dump());
    const auto conflict = editor.next();
    CHECK(conflict["event"] == "material_error");
    const auto cooked = cook_errors_about(project, dir.path(), "textures/white.png");
    REQUIRE_MESSAGE(cooked.size() == 1, cooked.size());
    CHECK(cooked[0].find("used as") != std::string::npos);
    CHECK_MESSAGE(has(conflict["errors"], cooked[0]), conflict.dump());
  }
}

TEST_SUITE("editor") {
  TEST_CASE(
      "the editor refuses a ship pragma naming an unknown keyword in the cook's words - at start and on an edit") {
    test::TempDir dir("parity");
    const fs::path project = test::copy_assets(dir);
    std::ofstream(project / "shaders/unlit.frag", std::ios::app) << "#pragma kiln ship NOPE\n";
    const auto cooked = cook_errors_about(project, dir.path(), "shaders/unlit");
    REQUIRE_MESSAGE(cooked.size() == 1, cooked.size());
    CHECK(cooked[0].find("unknown keyword 'NOPE'") != std::string::npos);

    test::EditorProcess editor(
        {KILN_CLI, "editor", project.string(), "--json", "--cache-root", (dir / "cache").string()});
    const auto ready = editor.next();
    REQUIRE(ready["event"] == "ready");
    CHECK_MESSAGE(has(ready["errors"], cooked[0]), ready.dump());
    // Fixed, then broken again by an edit: said on the shader's event.
    const std::string source = test::slurp(fs::path(KILN_SOURCE_DIR) / "assets/shaders/unlit.frag");
    test::write_in_place(project / "shaders/unlit.frag", source);
    CHECK(editor.next()["event"] == "shader");
    test::write_in_place(project / "shaders/unlit.frag", source + "#pragma kiln ship NOPE\n");
    const auto broken = editor.next();
    CHECK(broken["event"] == "shader_error");
    CHECK_MESSAGE(has(broken["errors"], cooked[0]), broken.dump());
  }
}

TEST_SUITE("editor") {
  TEST_CASE(
      "the editor compiles with the project's kiln.json as the cook does - and refuses a broken one in its words") {
    test::TempDir dir("parity");
    const fs::path project = test::copy_assets(dir);
    // A shader that builds only with the project's include directory and define.
    fs::create_directories(project / "lib");
    test::spit(project / "lib/grade.glsl", "vec4 grade(vec4 c) { return c * GRADE; }\n");
    std::string unlit = test::slurp(project / "shaders/unlit.frag");
    const std::string camera = "#include \"common/camera.glsl\"\n";
    REQUIRE(unlit.find(camera) != std::string::npos);
    unlit.insert(unlit.find(camera) + camera.size(), "#include \"grade.glsl\"\n");
    test::spit(project / "shaders/unlit.frag", unlit);
    const std::string settings = R"({"cook": {"include_dirs": ["lib"], "defines": ["GRADE=0.5"]}})";
    test::spit(project / "kiln.json", settings);
    const auto cooked = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(),
                                           "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(cooked.exit_code == 0, cooked.output);

    {
      test::EditorProcess editor(
          {KILN_CLI, "editor", project.string(), "--json", "--cache-root", (dir / "cache").string()});
      const auto ready = editor.next();
      REQUIRE(ready["event"] == "ready");
      CHECK_MESSAGE(ready["errors"].empty(), ready.dump());
      // An include under the project's include directory is a shader's source like any other.
      test::write_in_place(project / "lib/grade.glsl", "vec4 grade(vec4 c) { return c * GRADE * 2.0; }\n");
      const auto include_edit = editor.next();
      CHECK_MESSAGE(include_edit["event"] == "shader", include_edit.dump());
      CHECK(include_edit["shaders"] == nlohmann::json::array({"shaders/unlit"}));
      CHECK(include_edit.value("recompiled", 0) > 0);

      // A setting the cook refuses: the same words, and the session goes on with the previous ones.
      test::write_in_place(project / "kiln.json", R"({"cook": {"targets": [{"backend": "dx12"}]}})");
      const auto refused = editor.next();
      CHECK(refused["event"] == "settings_error");
      CHECK(refused["file"] == "kiln.json");
      const auto cook_said = cook_errors_about(project, dir.path(), "kiln.json");
      REQUIRE_MESSAGE(cook_said.size() == 1, cook_said.size());
      CHECK(cook_said[0].find("unknown backend 'dx12'") != std::string::npos);
      CHECK_MESSAGE(has(refused["errors"], cook_said[0]), refused.dump());

      // Another define: every variant that reads it is built again, with no error.
      test::write_in_place(project / "kiln.json", R"({"cook": {"include_dirs": ["lib"], "defines": ["GRADE=0.25"]}})");
      const auto reloaded = editor.next();
      CHECK_MESSAGE(reloaded["event"] == "settings", reloaded.dump());
      CHECK_MESSAGE(reloaded["errors"].empty(), reloaded.dump());
      CHECK(reloaded.value("compiled", 0) > 0);
      // Without the define the shader does not compile: said as the cook says it.
      test::write_in_place(project / "kiln.json", R"({"cook": {"include_dirs": ["lib"]}})");
      const auto undefined = editor.next();
      CHECK(undefined["event"] == "settings");
      CHECK_MESSAGE(!undefined["errors"].empty(), undefined.dump());
    }

    // Broken from the start: the ready event names it as the cook does.
    test::spit(project / "kiln.json", R"({"cook": {"defines": ["9LIVES"]}})");
    const auto cook_said = cook_errors_about(project, dir.path(), "kiln.json");
    REQUIRE_MESSAGE(cook_said.size() == 1, cook_said.size());
    test::EditorProcess editor(
        {KILN_CLI, "editor", project.string(), "--json", "--cache-root", (dir / "cache").string()});
    const auto ready = editor.next();
    REQUIRE(ready["event"] == "ready");
    CHECK_MESSAGE(has(ready["errors"], cook_said[0]), ready.dump());
  }
}

TEST_SUITE("editor") {
  TEST_CASE("a material edit that adds or removes a parameter re-declares the scripts' engine functions - live") {
    test::TempDir dir("parity");
    const fs::path project = test::copy_assets(dir);
    // brick does not set alpha_cutoff, so no engine function has its name yet.
    test::spit(project / "scripts/cutoff.lua", "function frame(t)\n  engine.brick_alpha_cutoff(0.5)\nend\n");
    const auto unknown = cook_errors_about(project, dir.path(), "scripts/cutoff.lua");
    REQUIRE_MESSAGE(unknown.size() == 1, unknown.size());
    CHECK(unknown[0].find("brick_alpha_cutoff") != std::string::npos);

    test::EditorProcess editor(
        {KILN_CLI, "editor", project.string(), "--json", "--cache-root", (dir / "cache").string()});
    const auto ready = editor.next();
    REQUIRE(ready["event"] == "ready");
    CHECK_MESSAGE(has(ready["errors"], unknown[0]), ready.dump());

    // The parameter added: the function exists, and the script compiles against it.
    auto brick = nlohmann::json::parse(test::slurp(project / "materials/brick.json"));
    brick["params"]["alpha_cutoff"] = 0.5;
    test::write_in_place(project / "materials/brick.json", brick.dump());
    const auto added = editor.next();
    REQUIRE_MESSAGE(added["event"] == "material", added.dump());
    CHECK_MESSAGE(has(added["scripts"], "scripts/cutoff.lua"), added.dump());
    CHECK_FALSE(added.contains("script_errors"));

    // Removed again: the script's call is an error in the cook's words.
    brick["params"].erase("alpha_cutoff");
    test::write_in_place(project / "materials/brick.json", brick.dump());
    const auto removed = editor.next();
    REQUIRE_MESSAGE(removed["event"] == "material", removed.dump());
    CHECK_MESSAGE(has(removed["script_errors"], unknown[0]), removed.dump());
    // An edit that changes no parameter compiles no script.
    brick["params"]["roughness"] = 0.5;
    test::write_in_place(project / "materials/brick.json", brick.dump());
    const auto unchanged = editor.next();
    REQUIRE(unchanged["event"] == "material");
    CHECK_FALSE(unchanged.contains("scripts"));
  }
}
