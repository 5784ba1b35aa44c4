#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/jit/program_io.h"
#include "kiln/runtime/pack.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

// A private copy of the sample project, so that tests can edit it.
fs::path copy_assets(const test::TempDir& dir) {
  const fs::path project = dir / "project";
  fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
  return project;
}

struct Cooked {
  test::RunResult run;
  nlohmann::json report;
};

Cooked cook(const test::TempDir& dir, const fs::path& project, const fs::path& out, const fs::path& cache,
            std::vector<std::string> extra = {}) {
  const fs::path report = dir / "report.json";
  fs::remove(report);
  std::vector<std::string> argv = {KILN_CLI, "cook", project.string(), "--out", out.string(), "--json", report.string(),
                                   "--cache-root", cache.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Cooked c{test::run_process(argv), {}};
  std::ifstream in(report);
  if (in) c.report = nlohmann::json::parse(in);
  return c;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_SUITE("editor") {

TEST_CASE("kiln cook builds every used variant - script page and texture into packs - and says so in one line") {
  test::TempDir dir("cook");
  const fs::path project = copy_assets(dir);
  const Cooked first = cook(dir, project, dir / "out", dir / "cache");
  REQUIRE_MESSAGE(first.run.exit_code == 0, first.run.output);
  const auto& totals = first.report["totals"];
  CHECK(totals["variants"].get<int>() >= 8);
  CHECK(totals["compiled"] == totals["variants"]);
  CHECK(totals["cache_hits"] == 0);
  CHECK(totals["errors"] == 0);
  // Why each variant is built: the sample ships FOG+SKIN (lit.frag) and ALPHA_TEST (foliage.json),
  // and strips FOG+SKIN+ALPHA_TEST, which lit.frag declares invalid.
  CHECK(totals["used"].get<int>() + totals["declared"].get<int>() == totals["variants"].get<int>());
  CHECK(totals["declared"] == 6);
  CHECK(totals["stripped"] == 3);
  CHECK(first.run.output.find("6 declared to ship, 3 stripped as invalid") != std::string::npos);
  CHECK(first.run.output.find("cook: " + std::to_string(totals["variants"].get<int>()) + " variants, " +
                              std::to_string(totals["compiled"].get<int>()) + " compiled, 0 cache hits, 0 errors, ") !=
        std::string::npos);
  CHECK(first.report["scripts"]["files"] == 3);
  CHECK(first.report["scripts"]["compiled"] == first.report["scripts"]["pages"]);
  CHECK(first.report["textures"]["files"] == 6);
  for (const auto& v : first.report["variants"]) {
    CHECK(v["key"].get<std::string>().size() == 12);
    CHECK(v["result"] == "compile");
    CHECK(v["spirv_bytes"].get<int>() > 0);
  }
  // The packs hold what the report lists.
  auto shaders = runtime::Pack::open(dir / "out" / "shaders.pack", runtime::PackKind::kShaders);
  REQUIRE_MESSAGE(shaders, shaders.error().message);
  CHECK((*shaders)->size() == totals["variants"].get<std::size_t>() + 8);  // and the 8 materials
  CHECK((*shaders)->find("shaders/lit|Forward|NORMALMAP")->has_value());
  CHECK((*shaders)->find("shaders/lit|Shadow|NORMALMAP")->has_value());
  CHECK((*shaders)->find("shaders/lit|Depth|FOG;SKIN")->has_value());        // declared by the shader
  CHECK((*shaders)->find("shaders/lit|Forward|ALPHA_TEST")->has_value());    // declared by foliage.json
  CHECK_FALSE((*shaders)->find("shaders/lit|Forward|ALPHA_TEST;FOG;SKIN")->has_value());  // stripped
  auto scripts = runtime::Pack::open(dir / "out" / "scripts.pack", runtime::PackKind::kScripts);
  REQUIRE(scripts);
  auto bytes = (*scripts)->find("scripts/numeric_kernel.lua");
  REQUIRE((bytes && bytes->has_value()));
  auto program = jit::deserialize_program(**bytes, "scripts/numeric_kernel.lua");
  REQUIRE_MESSAGE(program, program.error().message);
  CHECK(program->file == "scripts/numeric_kernel.lua");
  auto textures = runtime::Pack::open(dir / "out" / "textures.pack", runtime::PackKind::kTextures);
  REQUIRE(textures);
  CHECK((*textures)->size() == 6);
  CHECK((*textures)->find("textures/leaves.png")->has_value());
}

TEST_CASE("a second cook compiles nothing - an edited shader recompiles only its variants") {
  test::TempDir dir("cook");
  const fs::path project = copy_assets(dir);
  REQUIRE(cook(dir, project, dir / "out", dir / "cache").run.exit_code == 0);
  const Cooked again = cook(dir, project, dir / "out", dir / "cache");
  REQUIRE(again.run.exit_code == 0);
  CHECK(again.report["totals"]["compiled"] == 0);
  CHECK(again.report["totals"]["cache_hits"] == again.report["totals"]["variants"]);
  CHECK(again.report["scripts"]["compiled"] == 0);
  CHECK(again.report["textures"]["converted"] == 0);

  std::ofstream(project / "shaders" / "unlit.frag", std::ios::app) << "\n// an edit\n";
  const Cooked edited = cook(dir, project, dir / "out", dir / "cache");
  REQUIRE(edited.run.exit_code == 0);
  int recompiled = 0;
  for (const auto& v : edited.report["variants"]) {
    const bool unlit = v["shader"] == "shaders/unlit";
    CHECK_MESSAGE((v["result"] == "compile") == unlit, v.dump());
    recompiled += v["result"] == "compile";
  }
  CHECK(recompiled >= 1);
  CHECK(edited.report["totals"]["compiled"] == recompiled);

  const Cooked verified = cook(dir, project, dir / "out2", dir / "cache", {"--verify"});
  CHECK_MESSAGE(verified.run.exit_code == 0, verified.run.output);
  CHECK(verified.run.output.find("cook: verified ") != std::string::npos);
}

TEST_CASE("two cooks from empty caches write byte-identical packs") {
  test::TempDir dir("cook");
  const fs::path project = copy_assets(dir);
  REQUIRE(cook(dir, project, dir / "a", dir / "cache-a").run.exit_code == 0);
  REQUIRE(cook(dir, project, dir / "b", dir / "cache-b").run.exit_code == 0);
  for (const char* pack : {"shaders.pack", "scripts.pack", "textures.pack"}) {
    CAPTURE(pack);
    CHECK(slurp(dir / "a" / pack) == slurp(dir / "b" / pack));
    CHECK(slurp(dir / "a" / pack).find(dir.path().string()) == std::string::npos);  // no absolute paths
  }
}

TEST_CASE("kiln cook reports every error of a broken project - and cooks nothing") {
  test::TempDir dir("cook");
  const fs::path project = copy_assets(dir);
  std::ofstream(project / "materials" / "brick.json") << R"({"shader": "shaders/lit", "keywords": ["NORMALMAP",)";
  std::ofstream(project / "materials" / "metal.json")
      << R"({"shader": "shaders/lit", "keywords": ["SHINY"], "params": {}, "textures": {}})";
  std::ofstream(project / "materials" / "sky.json")
      << R"({"shader": "shaders/unlit", "keywords": [], "params": {}, "textures": {"main": "textures/nope.png"}})";
  std::ofstream(project / "scripts" / "broken.lua") << "local x = 1\nx = x + true\n";
  std::ofstream(project / "materials" / "monster.json")
      << R"({"shader": "shaders/lit", "keywords": ["SKIN", "ALPHA_TEST"], "params": {}, "textures": {}})";
  const Cooked broken = cook(dir, project, dir / "out", dir / "cache");
  CHECK(broken.run.exit_code == 1);
  const std::string& out = broken.run.output;
  CHECK(out.find("materials/brick.json:") != std::string::npos);
  CHECK(out.find("materials/metal.json: /keywords/0:") != std::string::npos);
  CHECK(out.find("materials/sky.json: /textures/main: no such file") != std::string::npos);
  CHECK(out.find("scripts/broken.lua:2:") != std::string::npos);
  CHECK(out.find("materials/monster.json: /keywords: shader shaders/lit declares the keywords ALPHA_TEST SKIN invalid together") !=
        std::string::npos);
  CHECK(out.find("cook: 5 errors, nothing cooked") != std::string::npos);
  CHECK(broken.report["errors"].size() == 5);
  CHECK_FALSE(fs::exists(dir / "out" / "shaders.pack"));

  auto usage = test::run_process({KILN_CLI, "cook", project.string()});
  CHECK(usage.exit_code == 2);
  CHECK(usage.output.find("--out <dir> is required") != std::string::npos);
}
}

TEST_SUITE("editor") {
TEST_CASE("on a terminal the cook draws a progress bar - in a pipe it prints plain lines") {
  test::TempDir dir("cook");
  const fs::path project = copy_assets(dir);
  const std::string command = std::string(KILN_CLI) + " cook " + project.string() + " --out " + (dir / "out").string() +
                              " --cache-root " + (dir / "cache").string();
  // util-linux `script` runs the cook on a pseudo-terminal.
  auto tty = test::run_process({"/usr/bin/script", "-qfec", command, "/dev/null"});
  REQUIRE_MESSAGE(tty.exit_code == 0, tty.output);
  CHECK(tty.output.find("\r[") != std::string::npos);
  CHECK(tty.output.find(" variants  ") != std::string::npos);
  CHECK(tty.output.find("ETA ") != std::string::npos);
  auto piped = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                                  (dir / "cache").string()});
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.output.find('\r') == std::string::npos);
  CHECK(piped.output.find("cook: 24/24 variants built\n") != std::string::npos);
}
}
