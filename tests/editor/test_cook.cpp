#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "cache_entries.h"
#include "child_process.h"
#include "cook_run.h"
#include "kiln/jit/program_io.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/tx_file.h"
#include <map>
#include <regex>
#include <sstream>
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

using test::copy_assets;

using test::cook;
using test::Cooked;
using test::slurp;

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("kiln cook builds every used variant - script page and texture into packs - and says so per stage") {
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
    // One summary line per stage with its counts and time, then the errors and where the set is.
    CHECK_MESSAGE(first.run.output.find("cook: " + std::to_string(totals["variants"].get<int>()) + " variants (" +
                                        std::to_string(totals["compiled"].get<int>()) + " compiled, 0 cache hits), ") !=
                      std::string::npos,
                  first.run.output);
    CHECK_MESSAGE(
        first.run.output.find("cook: 3 scripts (" + std::to_string(first.report["scripts"]["pages"].get<int>()) +
                              " pages: ") != std::string::npos,
        first.run.output);
    CHECK_MESSAGE(first.run.output.find("cook: 6 textures (6 converted, 0 from the cache), ") != std::string::npos,
                  first.run.output);
    CHECK_MESSAGE(first.run.output.find("cook: 0 errors, ") != std::string::npos, first.run.output);
    for (const char* stage : {"project", "variants", "scripts", "textures", "commit"})
      CHECK(first.report["stage_ms"][stage].get<double>() >= 0);
    CHECK(first.report["scripts"]["files"] == 3);
    CHECK(first.report["scripts"]["compiled"] == first.report["scripts"]["pages"]);
    CHECK(first.report["textures"]["files"] == 6);
    for (const auto& v : first.report["variants"]) {
      CHECK(v["key"].get<std::string>().size() == 12);
      CHECK(v["result"] == "compile");
      CHECK(v["spirv_bytes"].get<int>() > 0);
    }
    // The cooked set holds what the report lists.
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE_MESSAGE(set, set.error().message);
    CHECK((*set)->ids(runtime::EntryKind::kVariant).size() == totals["variants"].get<std::size_t>());
    CHECK((*set)->ids(runtime::EntryKind::kMaterial).size() == 8);
    CHECK((*set)->variant("shaders/lit|Forward|NORMALMAP"));
    CHECK((*set)->variant("shaders/lit|Shadow|NORMALMAP"));
    CHECK((*set)->variant("shaders/lit|Depth|FOG;SKIN"));                     // declared by the shader
    CHECK((*set)->variant("shaders/lit|Forward|ALPHA_TEST"));                 // declared by foliage.json
    CHECK_FALSE((*set)->variant("shaders/lit|Forward|ALPHA_TEST;FOG;SKIN"));  // stripped
    auto bytes = (*set)->program("scripts/numeric_kernel.lua");
    REQUIRE(bytes);
    auto program = jit::deserialize_program(*bytes, "scripts/numeric_kernel.lua");
    REQUIRE_MESSAGE(program, program.error().message);
    CHECK(program->file == "scripts/numeric_kernel.lua");
    CHECK((*set)->ids(runtime::EntryKind::kTexture).size() == 6);
    CHECK((*set)->texture("textures/leaves.png"));
    CHECK((*set)->check());
  }

  TEST_CASE("a second cook compiles nothing - an edited shader recompiles only its variants") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    REQUIRE(cook(dir, project, dir / "out", dir / "cache").run.exit_code == 0);
    // Into another directory: every variant from the cache.
    const Cooked again = cook(dir, project, dir / "out2", dir / "cache");
    REQUIRE(again.run.exit_code == 0);
    CHECK(again.report["totals"]["compiled"] == 0);
    CHECK(again.report["totals"]["cache_hits"] == again.report["totals"]["variants"]);
    CHECK(again.report["totals"]["unchanged"] == 0);
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

    const Cooked verified = cook(dir, project, dir / "out3", dir / "cache", {"--verify"});
    CHECK_MESSAGE(verified.run.exit_code == 0, verified.run.output);
    CHECK(verified.run.output.find("cook: verified ") != std::string::npos);
  }

  TEST_CASE("a cook whose shaders inputs did not change keeps the set's shaders pack - reading no variant") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir), out = dir / "out";
    const auto shaders_pack = [&] {
      std::string name;
      for (const auto& e : fs::directory_iterator(out))
        if (e.path().filename().string().rfind("shaders.", 0) == 0) name = e.path().filename().string();
      return name;
    };
    const Cooked first = cook(dir, project, out, dir / "cache");
    REQUIRE_MESSAGE(first.run.exit_code == 0, first.run.output);
    CHECK(first.report["totals"]["unchanged"] == 0);
    const std::string pack = shaders_pack();
    const std::string pack_bytes = slurp(out / pack);

    // No variant is read: with the variant cache gone, nothing compiles either.
    fs::remove_all(dir / "cache" / "shaders");
    const Cooked kept = cook(dir, project, out, dir / "cache");
    REQUIRE_MESSAGE(kept.run.exit_code == 0, kept.run.output);
    CHECK(kept.report["totals"]["unchanged"] == kept.report["totals"]["variants"]);
    CHECK(kept.report["totals"]["compiled"] == 0);
    CHECK(kept.report["totals"]["cache_hits"] == 0);
    CHECK(kept.run.output.find("its shaders pack is kept") != std::string::npos);
    CHECK(shaders_pack() == pack);
    CHECK(slurp(out / pack) == pack_bytes);
    {
      auto set = runtime::CookedSet::open(out);
      REQUIRE_MESSAGE(set, set.error().message);
      CHECK((*set)->check());
    }

    // A material's parameters are an input: its record changes, so the pack is built again (its
    // variants, unchanged, copied from the one it replaces).
    const std::string first_record = slurp(out / ".shaders-inputs");
    const fs::path material = project / "materials" / "bloom.json";
    const std::string original = slurp(material);
    auto doc = nlohmann::json::parse(original);
    doc["params"]["intensity"] = 0.25;
    std::ofstream(material, std::ios::trunc) << doc.dump();
    const Cooked edited = cook(dir, project, out, dir / "cache");
    REQUIRE_MESSAGE(edited.run.exit_code == 0, edited.run.output);
    CHECK(edited.report["totals"]["compiled"] == 0);
    CHECK(edited.report["totals"]["cache_hits"] == 0);
    CHECK(edited.run.output.find("its shaders pack is kept") == std::string::npos);
    CHECK(shaders_pack() != pack);
    const std::string rebuilt = shaders_pack();

    // The kept pack must be whole: a damaged byte builds it again.
    REQUIRE(cook(dir, project, out, dir / "cache").report["totals"]["unchanged"] != 0);
    test::flip_middle_byte(out / rebuilt);
    const Cooked damaged = cook(dir, project, out, dir / "cache");
    REQUIRE_MESSAGE(damaged.run.exit_code == 0, damaged.run.output);
    CHECK(damaged.run.output.find("its shaders pack is kept") == std::string::npos);
    {
      auto set = runtime::CookedSet::open(out);
      REQUIRE_MESSAGE(set, set.error().message);
      CHECK((*set)->check());
    }

    // And it must be the pack the record names: a stale record restored beside a newer set (its
    // inputs those of the project again, its pack gone) builds the pack of the project as it is.
    std::ofstream(material, std::ios::trunc) << original;
    std::ofstream(out / ".shaders-inputs", std::ios::trunc) << first_record;
    const Cooked restored = cook(dir, project, out, dir / "cache");
    REQUIRE_MESSAGE(restored.run.exit_code == 0, restored.run.output);
    CHECK(restored.run.output.find("its shaders pack is kept") == std::string::npos);
    CHECK(shaders_pack() == pack);
    CHECK(slurp(out / pack) == pack_bytes);

    // --verify compiles every variant again, whatever the record says.
    const Cooked verified = cook(dir, project, out, dir / "cache", {"--verify"});
    REQUIRE_MESSAGE(verified.run.exit_code == 0, verified.run.output);
    CHECK(verified.report["totals"]["unchanged"] == 0);
  }

  TEST_CASE("kiln cook --json prints the report on standard output - --report writes the same to a file") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    const fs::path report = dir / "report.json";
    auto r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--json",
                                "--report", report.string(), "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto printed = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    CHECK(printed == nlohmann::json::parse(test::slurp(report)));
    CHECK(printed["totals"]["variants"] == 24);
    // The old spelling that took a report file after --json is a usage error, not a project.
    auto old = test::run_process(
        {KILN_CLI, "cook", "--json", (dir / "r.json").string(), project.string(), "--out", (dir / "out2").string()});
    CHECK(old.exit_code == 2);
    CHECK_FALSE(fs::exists(dir / "r.json"));
  }

  TEST_CASE("a cooked material lists its passes in the order its shader declares them") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    REQUIRE(cook(dir, project, dir / "out", dir / "cache").run.exit_code == 0);
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE_MESSAGE(set, set.error().message);
    auto brick = (*set)->material("materials/brick.json");  // shaders/lit: passes Forward Shadow Depth
    REQUIRE_MESSAGE(brick, brick.error().message);
    std::vector<std::string> passes;
    for (const auto& pass : brick->passes) passes.push_back(pass.pass);
    CHECK(passes == std::vector<std::string>{"Forward", "Shadow", "Depth"});
  }

  TEST_CASE("two cooks from empty caches write byte-identical packs - on four workers or one") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    REQUIRE(cook(dir, project, dir / "a", dir / "cache-a", {"--jobs", "4"}).run.exit_code == 0);
    REQUIRE(cook(dir, project, dir / "b", dir / "cache-b", {"--jobs", "1"}).run.exit_code == 0);
    std::map<std::string, std::string> a, b;
    for (const auto& e : fs::directory_iterator(dir / "a")) a[e.path().filename().string()] = slurp(e.path());
    for (const auto& e : fs::directory_iterator(dir / "b")) b[e.path().filename().string()] = slurp(e.path());
    // The manifest, three packs, the two records of the shaders pack, the textures pack's, the lock file.
    CHECK(a.size() == 8);
    CHECK(a.count(".shaders-inputs"));
    CHECK(a.count(".textures-inputs"));
    CHECK(a.count(".shaders-entries"));
    CHECK(a == b);
    for (const auto& [file_name, bytes] : a) {
      const std::string& name = file_name;  // lambdas (CAPTURE) cannot name a binding in clang 14
      CAPTURE(name);
      CHECK(bytes.find(dir.path().string()) == std::string::npos);  // no absolute paths
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
    CHECK(out.find("materials/monster.json: /keywords: shader shaders/lit declares the keywords ALPHA_TEST SKIN "
                   "invalid together") != std::string::npos);
    // What only the shaders' reflection shows is listed in the same run: the variants of the sound
    // materials are built though the project has errors.
    CHECK(out.find("materials/sky.json: /textures/main: shader shaders/unlit has no texture slot 'main'") !=
          std::string::npos);
    CHECK(out.find("cook: 6 errors, nothing written") != std::string::npos);
    REQUIRE(broken.report["errors"].size() == 6);
    for (const auto& e : broken.report["errors"]) {
      const std::string file = e["file"].get<std::string>();  // project-relative
      CHECK_MESSAGE((file.rfind("materials/", 0) == 0 || file.rfind("scripts/", 0) == 0), file);
      CHECK_FALSE(e["message"].get<std::string>().empty());
    }
    CHECK_FALSE(fs::exists(dir / "out"));

    auto usage = test::run_process({KILN_CLI, "cook", project.string()});
    CHECK(usage.exit_code == 2);
    CHECK(usage.output.find("--out <dir> is required") != std::string::npos);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("on a terminal the cook draws a progress bar - in a pipe it prints plain lines") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    const std::string command = std::string(KILN_CLI) + " cook " + project.string() + " --out " +
                                (dir / "out").string() + " --cache-root " + (dir / "cache").string();
    // util-linux `script` runs the cook on a pseudo-terminal.
    auto tty = test::run_process({"/usr/bin/script", "-qfec", command, "/dev/null"});
    REQUIRE_MESSAGE(tty.exit_code == 0, tty.output);
    CHECK(tty.output.find("\r[") != std::string::npos);
    CHECK(tty.output.find(" variants  ") != std::string::npos);
    CHECK_MESSAGE(tty.output.find("/6 textures  ") != std::string::npos, tty.output);
    CHECK(tty.output.find("ETA ") != std::string::npos);
    auto piped = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out2").string(),
                                    "--cache-root", (dir / "cache").string()});
    REQUIRE(piped.exit_code == 0);
    CHECK(piped.output.find('\r') == std::string::npos);
    CHECK(piped.output.find("cook: 24/24 variants built\n") != std::string::npos);
    CHECK(piped.output.find("cook: 3/3 scripts built\n") != std::string::npos);
    CHECK(piped.output.find("cook: 6/6 textures built\n") != std::string::npos);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("a misspelt parameter or texture slot fails the cook naming the closest legal name") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    std::ofstream(project / "materials" / "sky.json")
        << R"({"shader": "shaders/unlit", "keywords": ["FOG"], "params": {"colr": [1, 1, 1, 1]}, "textures": {"main": "textures/sky.png"}})";
    std::ofstream(project / "materials" / "metal.json")
        << R"({"shader": "shaders/lit", "params": {"roughness": [0.5, 0.5]}, "textures": {"albedo_map": "textures/white.png"}})";
    const Cooked broken = cook(dir, project, dir / "out", dir / "cache");
    CHECK(broken.run.exit_code == 1);
    const std::string& out = broken.run.output;
    CHECK_MESSAGE(out.find("materials/sky.json: /params/colr: shader shaders/unlit has no parameter 'colr' (legal: ") !=
                      std::string::npos,
                  out);
    CHECK(out.find("did you mean 'color'?)") != std::string::npos);
    CHECK(
        out.find("materials/sky.json: /textures/main: shader shaders/unlit has no texture slot 'main' (the only one is "
                 "main_texture)") != std::string::npos);
    CHECK(out.find(
              "materials/metal.json: /params/roughness: shader shaders/lit declares 'roughness' as float, the material "
              "gives 2 numbers") != std::string::npos);
    CHECK(out.find("cook: 3 errors, nothing written") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out" / "manifest.json"));
    REQUIRE(broken.report["errors"].size() == 3);
    CHECK(broken.report["errors"][0]["file"].get<std::string>().rfind("materials/", 0) == 0);
  }

  TEST_CASE("one broken include line is one error listing the variants it breaks") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    const fs::path lighting = project / "shaders" / "common" / "lighting.glsl";
    const std::string text = slurp(lighting);
    std::ofstream(lighting, std::ios::trunc)
        << std::string(text).replace(text.find("roughness * roughness"), 21, "roughness * nope");
    const Cooked broken = cook(dir, project, dir / "out", dir / "cache");
    CHECK(broken.run.exit_code == 1);
    // As many distinct diagnostics as glslangValidator prints for one variant (glslang adds its own
    // follow-up errors), each once, not once per variant.
    auto oracle = test::run_process(
        {"/bin/sh", "-c", "cd \"$0\" && glslangValidator -V lit.frag -o /dev/null", (project / "shaders").string()});
    std::size_t diagnostics = 0;
    std::istringstream lines(oracle.output);
    static const std::regex located(R"(^ERROR: \S+:[0-9]+: .*)");
    // Less glslang's closing "'' : compilation terminated", which names nothing and Kiln drops.
    for (std::string line; std::getline(lines, line);)
      diagnostics += std::regex_match(line, located) && line.find("compilation terminated") == std::string::npos;
    CHECK(diagnostics >= 1);
    REQUIRE(broken.report["errors"].size() == diagnostics);
    const auto& e = broken.report["errors"][0];
    CHECK(e["file"] == "shaders/common/lighting.glsl");
    CHECK(e["line"] == 7);
    CHECK(e["message"] == "error: 'nope' : undeclared identifier");
    for (const auto& each : broken.report["errors"]) CHECK(each["variants"].size() == 21);  // every lit variant
    CHECK(e["variants"][0] == "shaders/lit Depth");
    const std::string& out = broken.run.output;
    CHECK(out.find("shaders/common/lighting.glsl:7: error: 'nope' : undeclared identifier (in 21 variants: shaders/lit "
                   "Depth, ") != std::string::npos);
    CHECK(out.find(" and 18 more)\n") != std::string::npos);
    CHECK(out.find((project / "shaders").string()) == std::string::npos);  // project-relative
    // Errors come before the summary line.
    CHECK(out.find("cook: " + std::to_string(diagnostics) + " errors, nothing written") >
          out.find("shaders/common/lighting.glsl:"));
  }

  TEST_CASE("a compiler warning is printed once with the number of variants it concerns - and is in the report") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    const fs::path lit = project / "shaders" / "lit.frag";
    const std::string text = slurp(lit);
    const std::size_t line2 = text.find('\n') + 1;
    std::ofstream(lit, std::ios::trunc) << text.substr(0, line2) << "#extension GL_EXT_nonexistent : warn\n"
                                        << text.substr(line2);
    const std::string warning =
        "shaders/lit.frag:2: warning: '#extension' : extension not supported: GL_EXT_nonexistent";
    for (int run = 0; run < 2; ++run) {  // compiled, then every variant a disk hit
      CAPTURE(run);
      const Cooked c = cook(dir, project, dir / "out", dir / "cache");
      REQUIRE_MESSAGE(c.run.exit_code == 0, c.run.output);
      CHECK((c.report["totals"]["compiled"] == 0) == (run == 1));
      REQUIRE(c.report["warnings"].size() == 1);
      CHECK(c.report["warnings"][0]["message"] == warning);
      CHECK(c.report["warnings"][0]["variants"] == 21);  // every lit variant
      const std::string& out = c.run.output;
      const std::size_t at = out.find(warning + " (in 21 variants)\n");
      CHECK_MESSAGE(at != std::string::npos, out);
      CHECK(out.find(warning, at + 1) == std::string::npos);
    }
  }

  TEST_CASE("kiln shader compile refuses a combination the shader declares invalid naming the rule") {
    auto refused =
        test::run_process({KILN_CLI, "shader", "compile", (fs::path(KILN_SOURCE_DIR) / "assets/shaders/lit").string(),
                           "--keywords", "SKIN,ALPHA_TEST", "--pass", "Forward"});
    CHECK(refused.exit_code == 1);
    CHECK_MESSAGE(
        refused.output.find(
            "declares the keywords ALPHA_TEST SKIN invalid together (#pragma kiln invalid ALPHA_TEST SKIN)") !=
            std::string::npos,
        refused.output);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("a torn or swapped cached texture conversion is converted again - never packed") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    REQUIRE(cook(dir, project, dir / "out", dir / "cache").run.exit_code == 0);
    const std::vector<fs::path> cached = test::cache_entries(dir / "cache", "textures");
    REQUIRE(cached.size() == 6);
    const std::string first = slurp(cached[0]);
    std::ofstream(cached[0], std::ios::binary | std::ios::trunc) << first.substr(0, 500);  // torn
    std::ofstream(cached[1], std::ios::binary | std::ios::trunc) << slurp(cached[2]);      // swapped
    const Cooked again = cook(dir, project, dir / "out2", dir / "cache");
    REQUIRE_MESSAGE(again.run.exit_code == 0, again.run.output);
    CHECK(again.report["textures"]["cache_discarded"] == 2);
    CHECK(again.report["textures"]["converted"] == 2);
    CHECK(again.report["textures"]["cache_hits"] == 4);
    // The set holds what a cook from empty caches holds.
    REQUIRE(cook(dir, project, dir / "fresh", dir / "fresh-cache").run.exit_code == 0);
    CHECK(slurp(dir / "out2" / "manifest.json") == slurp(dir / "fresh" / "manifest.json"));
    auto played =
        test::run_process({KILN_PLAYER, (dir / "out2").string(), "--cache-root", (dir / "player-cache").string()});
    CHECK_MESSAGE(played.exit_code == 0, played.output);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("an artist's .tx beside its source is cooked as it is - a broken one is an error naming it") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    const fs::path tx = project / "textures" / "brick.tx";
    auto made =
        test::run_process({"/usr/bin/maketx", (project / "textures" / "brick.png").string(), "-o", tx.string()});
    REQUIRE_MESSAGE(made.exit_code == 0, made.output);
    const Cooked cooked = cook(dir, project, dir / "out", dir / "cache");
    REQUIRE_MESSAGE(cooked.run.exit_code == 0, cooked.run.output);
    CHECK(cooked.report["textures"]["from_tx"] == 1);
    CHECK(cooked.report["textures"]["converted"] == 5);
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE(set);
    auto packed = (*set)->texture("textures/brick.png");
    REQUIRE(packed);
    CHECK(std::string(reinterpret_cast<const char*>(packed->data()), packed->size()) == slurp(tx));

    const std::string whole = slurp(tx);
    std::ofstream(tx, std::ios::binary | std::ios::trunc) << whole.substr(0, whole.size() - 300);
    const Cooked broken = cook(dir, project, dir / "out", dir / "cache");
    CHECK(broken.run.exit_code == 1);
    CHECK_MESSAGE(broken.run.output.find("textures/brick.tx") != std::string::npos, broken.run.output);
    CHECK(broken.run.output.find("(the .tx beside brick.png: fix or delete it") != std::string::npos);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("kiln cook builds the targets kiln.json asks for - each under its own name in the shaders pack") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    // A define every variant needs, and an include found only through the project's include directory.
    std::ofstream(project / "shaders" / "unlit.frag", std::ios::app)
        << "#ifndef PROJECT_QUALITY\n#error PROJECT_QUALITY is not defined\n#endif\n#include \"fog_colour.glsl\"\n";
    fs::create_directories(project / "shaders" / "lib");
    std::ofstream(project / "shaders" / "lib" / "fog_colour.glsl") << "// found through cook.include_dirs\n";
    std::ofstream(project / "kiln.json") << R"({"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.1"},
      {"backend": "hlsl"}, {"backend": "glsl"}], "include_dirs": ["shaders/lib"], "defines": ["PROJECT_QUALITY=2"]}})";
    const Cooked cooked = cook(dir, project, dir / "out", dir / "cache");
    REQUIRE_MESSAGE(cooked.run.exit_code == 0, cooked.run.output);
    CHECK(cooked.report["totals"]["compiled"] == 3 * cooked.report["totals"]["variants"].get<int>());
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE(set);
    CHECK((*set)->targets() == std::vector<std::string>{"spirv-vulkan1.1", "hlsl-vulkan1.0", "glsl-vulkan1.0"});
    CHECK((*set)->check());
    auto spirv = (*set)->variant("shaders/unlit|Forward|FOG");  // the default: the first target
    REQUIRE_MESSAGE(spirv, spirv.error().message);
    CHECK(spirv->stages[1].source.empty());
    CHECK(spirv->stages[1].spirv[1] == 0x00010300);  // SPIR-V 1.3: Vulkan 1.1
    auto hlsl = (*set)->variant("shaders/unlit|Forward|FOG", "hlsl-vulkan1.0");
    REQUIRE_MESSAGE(hlsl, hlsl.error().message);
    CHECK(hlsl->stages[1].source.find("register(b0, space0)") != std::string::npos);  // Camera: set 0
    CHECK(hlsl->stages[1].source.find("register(t0, space1)") != std::string::npos);  // main_texture: set 1
    auto glsl = (*set)->variant("shaders/unlit|Forward|FOG", "glsl-vulkan1.0");
    REQUIRE(glsl);
    CHECK(glsl->stages[1].source.rfind("#version 450", 0) == 0);

    std::ofstream(project / "kiln.json")
        << R"({"cook": {"targets": [{"backend": "dx12"}], "include_dirs": ["../elsewhere"]}})";
    const Cooked broken = cook(dir, project, dir / "out", dir / "cache");
    CHECK(broken.run.exit_code == 1);
    CHECK(broken.run.output.find(
              "kiln.json: /cook/targets/0/backend: unknown backend 'dx12' (spirv, glsl, essl, hlsl, msl)") !=
          std::string::npos);
    CHECK(broken.run.output.find("kiln.json: /cook/include_dirs: '../elsewhere' leaves the project") !=
          std::string::npos);
    auto previous = runtime::CookedSet::open(dir / "out");  // the previous set is still there and whole
    REQUIRE(previous);
    CHECK((*previous)->targets().size() == 3);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("a material naming its shader in another spelling gets the same variants and its layout") {
    test::TempDir dir("cook");
    const fs::path project = copy_assets(dir);
    const std::string metal = slurp(project / "materials" / "metal.json");
    std::ofstream(project / "materials" / "metal.json", std::ios::trunc)
        << std::string(metal).replace(metal.find("\"shaders/lit\""), 13, "\"./shaders//lit\"");
    const Cooked cooked = cook(dir, project, dir / "out", dir / "cache");
    REQUIRE_MESSAGE(cooked.run.exit_code == 0, cooked.run.output);
    auto set = runtime::CookedSet::open(dir / "out");
    REQUIRE(set);
    CHECK((*set)->check());
    auto record = (*set)->material("materials/metal.json");
    REQUIRE(record);
    CHECK(record->shader == "shaders/lit");
    REQUIRE(record->pass("Forward"));
    CHECK(record->pass("Forward")->variant == "shaders/lit|Forward|");
    CHECK(record->pass("Forward")->blocks.size() == 1);
    CHECK(record->pass("Forward")->textures.size() == 1);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("the cook converts each texture with its settings - slot defaults - sidecar - material entry") {
    test::TempDir dir("cook-texture-settings");
    const fs::path project = copy_assets(dir);
    auto info_of = [&](const std::string& texture) {
      auto set = runtime::CookedSet::open(dir / "out");
      REQUIRE_MESSAGE(set, set.error().message);
      auto bytes = (*set)->texture(texture);
      REQUIRE_MESSAGE(bytes, bytes.error().message);
      auto tx = textures::TxFile::open_memory(texture, *bytes);
      REQUIRE_MESSAGE(tx, tx.error().message);
      return (*tx)->info();
    };
    Cooked c = cook(dir, project, dir / "out", dir / "cache");
    REQUIRE_MESSAGE(c.run.exit_code == 0, c.run.output);
    // Slot defaults: a colour slot is sRGB, a normal slot a linear normal map; both repeat.
    CHECK(info_of("textures/brick.png").color_space == "sRGB");
    CHECK_FALSE(info_of("textures/brick.png").normal_map);
    CHECK(info_of("textures/brick_normal.png").color_space == "linear");
    CHECK(info_of("textures/brick_normal.png").normal_map);
    CHECK(info_of("textures/brick.png").wrap_s == textures::WrapMode::Periodic);

    // A sidecar changes its texture's settings, and so its conversion (another cache key).
    std::ofstream(project / "textures/sky.png.json") << R"({"color_space": "linear", "wrap": ["clamp", "mirror"]})";
    c = cook(dir, project, dir / "out", dir / "cache");
    REQUIRE_MESSAGE(c.run.exit_code == 0, c.run.output);
    CHECK(c.report["textures"]["converted"] == 1);
    CHECK(info_of("textures/sky.png").color_space == "linear");
    CHECK(info_of("textures/sky.png").wrap_s == textures::WrapMode::Clamp);
    CHECK(info_of("textures/sky.png").wrap_t == textures::WrapMode::Mirror);

    // A material entry object wins over the sidecar.
    std::ofstream(project / "materials/sky.json", std::ios::trunc)
        << R"({"shader": "shaders/unlit", "keywords": [], "params": {}, "textures": {"main_texture": )"
        << R"({"file": "textures/sky.png", "filter": "nearest", "wrap": "black", "compression": "none"}}})";
    c = cook(dir, project, dir / "out", dir / "cache");
    REQUIRE_MESSAGE(c.run.exit_code == 0, c.run.output);
    CHECK(info_of("textures/sky.png").nearest);
    CHECK(info_of("textures/sky.png").compression == "none");
    CHECK(info_of("textures/brick.png").compression == "zip");
    CHECK(info_of("textures/sky.png").wrap_s == textures::WrapMode::Black);
    CHECK(info_of("textures/sky.png").color_space == "linear");  // from the sidecar still

    // Two materials asking one texture for different settings: an error naming both uses.
    std::ofstream(project / "materials/white_nearest.json")
        << R"({"shader": "shaders/unlit", "keywords": [], "params": {}, "textures": {"main_texture": )"
        << R"({"file": "textures/white.png", "filter": "nearest"}}})";
    c = cook(dir, project, dir / "out", dir / "cache");
    CHECK(c.run.exit_code == 1);
    CHECK_MESSAGE(c.run.output.find("textures/white.png: used as ") != std::string::npos, c.run.output);
    CHECK(c.run.output.find("materials/white_nearest.json /textures/main_texture") != std::string::npos);
    CHECK(c.run.output.find("white.png.json") != std::string::npos);

    // A broken setting names the file, the place and the problem.
    std::ofstream(project / "materials/white_nearest.json", std::ios::trunc)
        << R"({"shader": "shaders/unlit", "keywords": [], "params": {}, "textures": {"main_texture": )"
        << R"({"file": "textures/white.png", "filter": "cubic"}}})";
    std::ofstream(project / "textures/sky.png.json", std::ios::trunc) << R"({"wrap": 3})";
    c = cook(dir, project, dir / "out", dir / "cache");
    CHECK(c.run.exit_code == 1);
    CHECK_MESSAGE(c.run.output.find("white_nearest.json: /textures/main_texture/filter: expected \"linear\" or "
                                    "\"nearest\", got \"cubic\"") != std::string::npos,
                  c.run.output);
    CHECK(c.run.output.find("sky.png.json: /wrap: expected black, clamp, periodic or mirror") != std::string::npos);
  }
}
