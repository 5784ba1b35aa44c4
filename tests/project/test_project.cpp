// The project model as the cook and the editor read a project: every part found, its settings
// resolved, and problems reported file by file in one form.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "kiln/project/project.h"
#include "kiln/project/project_reader.h"
#include "kiln/shadercache/shader_library.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

}  // namespace

TEST_SUITE("project") {
  TEST_CASE("the sample project loads whole - materials - variants - scripts and textures with their settings") {
    const fs::path root = fs::path(KILN_SOURCE_DIR) / "assets";
    shadercache::ShaderLibrary library({.root = root});
    const project::Project p = project::load_project(root, {.targets = {{}}}, library);
    CHECK_MESSAGE(p.errors.empty(), (p.errors.empty() ? "" : p.errors.front()));
    CHECK(p.materials.size() == 8);
    CHECK(p.scripts.size() == 3);
    REQUIRE(p.textures.size() == 6);
    CHECK(std::is_sorted(p.textures.begin(), p.textures.end(),
                         [](const auto& a, const auto& b) { return a.file < b.file; }));
    // Each texture has the settings of its use: a normal map is not sRGB colour.
    for (const auto& t : p.textures)
      if (t.file.find("normal") != std::string::npos) CHECK(t.settings.normal_map);
    CHECK(p.variants.size() == p.used + p.declared);
    for (const auto& m : p.materials) CHECK_FALSE(m.record.passes.empty());
  }

  TEST_CASE("a material read alone gets the checks and words of the whole project") {
    test::TempDir dir("project");
    const fs::path root = test::copy_assets(dir);
    shadercache::ShaderLibrary library({.root = root});
    project::ProjectReader reader(root, library);
    std::vector<std::string> errors;
    std::vector<project::TextureUse> uses;
    auto brick = reader.read_material("materials/brick.json", errors, &uses);
    REQUIRE(brick);
    CHECK(errors.empty());
    CHECK(uses.size() == brick->source.textures.size());
    // An unknown keyword, a missing texture, a broken sidecar: each said, naming the file and place.
    auto m = nlohmann::json::parse(test::slurp(root / "materials/brick.json"));
    m["keywords"] = {"FOGG"};
    test::spit(root / "materials/k.json", m.dump());
    CHECK_FALSE(reader.read_material("materials/k.json", errors));
    CHECK(any_contains(errors, "materials/k.json"));
    CHECK(any_contains(errors, "FOGG"));
    errors.clear();
    m = nlohmann::json::parse(test::slurp(root / "materials/brick.json"));
    const std::string slot = m["textures"].begin().key();
    m["textures"][slot] = "textures/none.png";
    test::spit(root / "materials/t.json", m.dump());
    CHECK(reader.read_material("materials/t.json", errors));
    CHECK(any_contains(errors, "materials/t.json: /textures/" + slot + ": no such file"));
    errors.clear();
    const std::string texture = brick->record.textures.at(slot);
    test::spit(root / (texture + ".json"), "{\"wrap\": ");
    reader.forget_sidecar(texture);
    uses.clear();
    CHECK(reader.read_material("materials/brick.json", errors, &uses));
    CHECK(any_contains(errors, texture + ".json"));
    // Two uses of one texture with other settings: both named, and the sidecar to give it one.
    std::vector<project::TextureUse> conflicting = {{"textures/a.png", {}, "materials/x.json /textures/albedo"},
                                                    {"textures/a.png", {}, "materials/y.json /textures/normal"}};
    conflicting[1].settings.color_space = textures::ColorSpace::kLinear;
    errors.clear();
    const auto resolved = project::check_texture_uses(reader, conflicting, errors);
    REQUIRE(resolved.size() == 1);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("materials/x.json /textures/albedo") != std::string::npos);
    CHECK(errors[0].find("materials/y.json /textures/normal") != std::string::npos);
    CHECK(errors[0].find("a.png.json") != std::string::npos);
  }
}
