// What a cook ships by usage records, decided on the sample project as the cook loads it: needed
// variants must be recorded (or the material named), leniently unused materials go, declared
// variants go unless recorded or `always`, stale names are said.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "kiln/project/project.h"
#include "kiln/project/usage_selection.h"
#include "kiln/shadercache/shader_library.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

project::Project load(const fs::path& root) {
  shadercache::ShaderLibrary library({.root = root});
  project::Project p = project::load_project(root, {.targets = {{}}}, library);
  REQUIRE_MESSAGE(p.errors.empty(), (p.errors.empty() ? "" : p.errors.front()));
  return p;
}

const project::MaterialInput& material(const project::Project& p, const std::string& file) {
  auto it = std::find_if(p.materials.begin(), p.materials.end(),
                         [&](const project::MaterialInput& m) { return m.record.file == file; });
  REQUIRE(it != p.materials.end());
  return *it;
}

// A record of a run that drew `files`: every pass of each.
usage::UsageRecord drew(const project::Project& p, const std::vector<std::string>& files) {
  usage::UsageRecord r;
  for (const auto& file : files)
    for (const auto& pass : material(p, file).record.passes) r.variants.insert("spirv-vulkan1.0:" + pass.variant);
  return r;
}

std::set<std::string> names(const project::Project& p) {
  std::set<std::string> out;
  for (const auto& v : p.variants) out.insert(v.key.name());
  return out;
}

bool has_material(const project::Project& p, const std::string& file) {
  return std::any_of(p.materials.begin(), p.materials.end(),
                     [&](const project::MaterialInput& m) { return m.record.file == file; });
}

}  // namespace

TEST_SUITE("project") {
  TEST_CASE("a record of every material ships their variants and leaves out only declared ones no run used") {
    const fs::path root = fs::path(KILN_SOURCE_DIR) / "assets";
    project::Project p = load(root);
    std::vector<std::string> all;
    for (const auto& m : p.materials) all.push_back(m.record.file);
    const std::size_t planned = p.variants.size(), declared = p.declared;
    REQUIRE(declared > 0);  // the sample's lit shader ships FOG SKIN whether or not a material uses it
    const auto selection = project::select_by_usage(p, drew(p, all), false);
    CHECK(selection.errors.empty());
    CHECK(p.materials.size() == all.size());
    CHECK(p.declared == 0);
    CHECK(p.variants.size() == planned - declared);
    CHECK(selection.left_out_variants == declared);
    CHECK(selection.left_out_materials.empty());
    CHECK(selection.left_out_declared.count("shaders/lit") == 1);
    CHECK(selection.left_out_keywords.at("FOG") >= 1);
    CHECK(selection.stale.empty());
  }

  TEST_CASE("a needed variant no record has names its material - leniently the unused materials go whole") {
    const fs::path root = fs::path(KILN_SOURCE_DIR) / "assets";
    const project::Project full = load(root);
    const usage::UsageRecord record = drew(full, {"materials/brick.json", "materials/sky.json"});
    project::Project strict = full;
    const auto refused = project::select_by_usage(strict, record, false);
    REQUIRE_FALSE(refused.errors.empty());
    const auto metal = std::find_if(refused.errors.begin(), refused.errors.end(),
                                    [](const std::string& e) { return e.rfind("materials/metal.json: ", 0) == 0; });
    REQUIRE(metal != refused.errors.end());
    CHECK(metal->find("in no usage record") != std::string::npos);
    CHECK(metal->find("--usage-lenient") != std::string::npos);
    CHECK(std::none_of(refused.errors.begin(), refused.errors.end(),
                       [](const std::string& e) { return e.rfind("materials/brick.json", 0) == 0; }));

    project::Project lenient = full;
    const auto chosen = project::select_by_usage(lenient, record, true);
    CHECK(chosen.errors.empty());
    CHECK(has_material(lenient, "materials/brick.json"));
    CHECK(has_material(lenient, "materials/sky.json"));
    // A script sets ui_panel's colour: it is used though no record drew it.
    CHECK(has_material(lenient, "materials/ui_panel.json"));
    CHECK_FALSE(has_material(lenient, "materials/metal.json"));
    CHECK(chosen.left_out_materials.count("materials/metal.json") == 1);
    // Every variant kept is one a kept material needs or a record names.
    std::set<std::string> needed;
    for (const auto& m : lenient.materials)
      for (const auto& pass : m.record.passes) needed.insert(pass.variant);
    CHECK(names(lenient) == needed);
    CHECK(chosen.shipped_recorded + chosen.shipped_unrecorded == lenient.variants.size());
    CHECK(lenient.variants.size() + chosen.left_out_variants == full.variants.size());
  }

  TEST_CASE("a record older than a material is stale - its names are said and the changed material is named") {
    test::TempDir dir("usage-selection");
    const fs::path root = test::copy_assets(dir);
    const project::Project before = load(root);
    usage::UsageRecord record;
    for (const auto& m : before.materials)
      for (const auto& pass : m.record.passes) record.variants.insert("spirv-vulkan1.0:" + pass.variant);
    // brick gains a keyword after the run.
    std::string text = test::slurp(root / "materials/brick.json");
    const auto at = text.find("\"keywords\"");
    REQUIRE(at != std::string::npos);
    text.insert(text.find('[', at) + 1, "\"ALPHA_TEST\", ");
    test::spit(root / "materials/brick.json", text);
    project::Project after = load(root);
    const auto selection = project::select_by_usage(after, record, false);
    REQUIRE(selection.errors.size() == 1);
    CHECK(selection.errors[0].rfind("materials/brick.json: ", 0) == 0);
    CHECK_FALSE(selection.stale.empty());
  }

  TEST_CASE("always-declared variants ship with no record naming them") {
    test::TempDir dir("usage-always");
    const fs::path root = test::copy_assets(dir);
    std::string lit = test::slurp(root / "shaders/lit.frag");
    const auto at = lit.find("#pragma kiln ship FOG SKIN\n");
    REQUIRE(at != std::string::npos);
    lit.replace(at, 26, "#pragma kiln ship FOG SKIN always\n");
    test::spit(root / "shaders/lit.frag", lit);
    project::Project p = load(root);
    std::vector<std::string> all;
    for (const auto& m : p.materials) all.push_back(m.record.file);
    const auto selection = project::select_by_usage(p, drew(p, all), false);
    CHECK(selection.errors.empty());
    CHECK(selection.shipped_always >= 1);
    CHECK(names(p).count("shaders/lit|Forward|FOG;SKIN") == 1);
  }
}
