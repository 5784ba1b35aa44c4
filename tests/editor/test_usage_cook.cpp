// The loop from the game back to the cook, through the real processes: kiln-player records what a
// run used, kiln cook ships by the record, and the game draws the same frame from the smaller set.

#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "kiln/cache/hash.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/usage/usage_record.h"
#include "kiln/runtime/material_record.h"
#include "lavapipe.h"
#include "set_rewrite.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

test::RunResult cook(const test::TempDir& dir, const fs::path& project, const fs::path& out,
                     std::vector<std::string> more = {}) {
  std::vector<std::string> argv = {KILN_CLI,     "cook",         project.string(),        "--out",
                                   out.string(), "--cache-root", (dir / "cache").string()};
  argv.insert(argv.end(), more.begin(), more.end());
  return test::run_process(argv);
}

// Plays brick, brick_foggy and sky for one frame, its pictures into `pictures`.
test::RunResult play(const test::TempDir& dir, const fs::path& set, const fs::path& pictures,
                     std::vector<std::string> more = {}) {
  std::vector<std::string> argv = {KILN_PLAYER,
                                   set.string(),
                                   "--materials",
                                   "materials/brick*",
                                   "--materials",
                                   "materials/sky.json",
                                   "--frames",
                                   "1",
                                   "--render",
                                   pictures.string(),
                                   "--require-gpu",
                                   "--cache-root",
                                   (dir / "player-cache").string()};
  argv.insert(argv.end(), more.begin(), more.end());
  return test::run_process(argv, test::lavapipe_env());
}

std::size_t count(const fs::path& set, runtime::EntryKind kind) {
  auto opened = runtime::CookedSet::open(set);
  REQUIRE_MESSAGE(opened, opened.error().message);
  return (*opened)->ids(kind).size();
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a recorded run cooks a smaller set that draws the same frame byte for byte") {
    test::TempDir dir("usage-cook");
    const fs::path project = test::copy_assets(dir);
    auto full = cook(dir, project, dir / "full");
    REQUIRE_MESSAGE(full.exit_code == 0, full.output);
    // A pattern that plays nothing is a mistake, said before anything runs.
    auto typo = test::run_process({KILN_PLAYER, (dir / "full").string(), "--materials", "materials/brikc*"});
    CHECK(typo.exit_code == 1);
    CHECK(typo.output.find("--materials materials/brikc*: matches no material of the set") != std::string::npos);
    const fs::path record = dir / "run.usage.json";
    auto recorded = play(dir, dir / "full", dir / "full-frame", {"--record-usage", record.string()});
    REQUIRE_MESSAGE(recorded.exit_code == 0, recorded.output);
    CHECK(recorded.output.find("player: usage recorded in " + record.string()) != std::string::npos);

    auto read = usage::read_usage(record);
    REQUIRE_MESSAGE(read, read.error().message);
    // Brick, brick_foggy (3 passes each) and sky (1): the variants the run drew, and their pipelines.
    CHECK(read->variants.size() == 7);
    CHECK(std::all_of(read->variants.begin(), read->variants.end(), [](const std::string& v) {
      return v.find("shaders/lit|") != std::string::npos || v.find("shaders/unlit|Forward|FOG") != std::string::npos;
    }));
    REQUIRE(read->pipelines.size() == 7);
    for (const auto& p : read->pipelines) {
      CHECK(read->variants.count(p.variant) == 1);
      CHECK_FALSE(p.vertex_layout.empty());
      CHECK_FALSE(p.render_pass.empty());
    }
    CHECK_FALSE(read->pages.empty());
    CHECK(read->textures.count("textures/brick.png") == 1);
    CHECK(read->textures.at("textures/brick.png").size() > 1);  // its mip levels
    CHECK(read->textures.count("textures/foliage.png") == 0);   // foliage was not played

    // By default every material must be covered: metal's variants are in no record.
    auto strict = cook(dir, project, dir / "strict", {"--usage", record.string()});
    CHECK(strict.exit_code == 1);
    CHECK(strict.output.find("materials/metal.json: ") != std::string::npos);
    CHECK(strict.output.find("--usage-lenient") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "strict" / "manifest.json"));

    const fs::path report_file = dir / "lean-report.json";
    auto lean = cook(dir, project, dir / "lean",
                     {"--usage", record.string(), "--usage-lenient", "--report", report_file.string()});
    REQUIRE_MESSAGE(lean.exit_code == 0, lean.output);
    CHECK(lean.output.find("cook: usage (1 record") != std::string::npos);
    const auto report = nlohmann::json::parse(test::slurp(report_file));
    const auto& usage = report["usage"];
    CHECK(usage["left_out"]["materials"].contains("materials/metal.json"));
    CHECK(usage["left_out"]["materials"].contains("materials/character.json"));
    CHECK_FALSE(usage["left_out"]["materials"].contains("materials/brick.json"));
    CHECK(usage["left_out"]["keywords"].size() >= 1);
    CHECK(usage["stale"].empty());
    // Only the hot pages were compiled or read from the page cache, and counted.
    CHECK(usage["pages"]["shipped"].get<int>() > 0);
    CHECK(report["scripts"]["compiled"].get<int>() + report["scripts"]["cache_hits"].get<int>() >=
          usage["pages"]["shipped"].get<int>());
    CHECK(count(dir / "lean", runtime::EntryKind::kVariant) < count(dir / "full", runtime::EntryKind::kVariant));
    CHECK(count(dir / "lean", runtime::EntryKind::kMaterial) < count(dir / "full", runtime::EntryKind::kMaterial));
    // The record is an input of the set: its digest is in the manifest.
    const auto manifest = nlohmann::json::parse(test::slurp(dir / "lean" / "manifest.json"));
    CHECK(manifest["usage"]["sha256"] == cache::sha256_hex(std::string_view(usage::encode_usage(*read))));
    CHECK(usage["sha256"] == manifest["usage"]["sha256"]);
    CHECK_FALSE(nlohmann::json::parse(test::slurp(dir / "full" / "manifest.json")).contains("usage"));
    // Hot pages only: every shipped page is one the run asked for.
    {
      auto lean_set = runtime::CookedSet::open(dir / "lean");
      REQUIRE(lean_set);
      for (const auto& id : (*lean_set)->ids(runtime::EntryKind::kPage)) CHECK(read->pages.count(id) == 1);
    }

    auto again = play(dir, dir / "lean", dir / "lean-frame", {"--json"});
    REQUIRE_MESSAGE(again.exit_code == 0, again.output);
    const auto played = nlohmann::json::parse(again.output.substr(again.output.find('{')));
    CHECK(played["pages_interpreted"] == 0);
    CHECK(played["compiles"] == 0);
    // Every pipeline the frame needs was made before it, from the set's record, in its order.
    const auto& pipelines = played["gpu"]["pipelines"];
    CHECK(pipelines["recorded"] == 7);
    CHECK(pipelines["precreated"] == 7);
    CHECK(pipelines["during_frames"] == 0);
    CHECK(pipelines["recorded_unused"] == 0);
    CHECK(pipelines["recorded_changed"] == 0);
    CHECK(pipelines["graphics"] == 7);
    // Without a record the first frame makes them.
    auto unrecorded = play(dir, dir / "full", dir / "full-frame-2", {"--json"});
    REQUIRE_MESSAGE(unrecorded.exit_code == 0, unrecorded.output);
    const auto baseline = nlohmann::json::parse(unrecorded.output.substr(unrecorded.output.find('{')));
    CHECK(baseline["gpu"]["pipelines"]["precreated"] == 0);
    CHECK(baseline["gpu"]["pipelines"]["during_frames"] == 7);
    const std::string before = test::slurp(dir / "full-frame" / "frame.png");
    REQUIRE_FALSE(before.empty());
    CHECK(test::slurp(dir / "lean-frame" / "frame.png") == before);
  }

  TEST_CASE("a record older than a material is named - strictly an error - leniently stale names in the report") {
    test::TempDir dir("usage-stale");
    const fs::path project = test::copy_assets(dir);
    auto full = cook(dir, project, dir / "full");
    REQUIRE_MESSAGE(full.exit_code == 0, full.output);
    const fs::path record = dir / "all.usage.json";
    auto recorded = test::run_process({KILN_PLAYER, (dir / "full").string(), "--record-usage", record.string(),
                                       "--cache-root", (dir / "player-cache").string()},
                                      test::lavapipe_env());
    REQUIRE_MESSAGE(recorded.exit_code == 0, recorded.output);
    // Every material played: the record covers the whole set.
    auto covered = cook(dir, project, dir / "covered", {"--usage", record.string()});
    REQUIRE_MESSAGE(covered.exit_code == 0, covered.output);

    // brick gains a keyword after the run.
    std::string text = test::slurp(project / "materials/brick.json");
    text.insert(text.find('[', text.find("\"keywords\"")) + 1, "\"ALPHA_TEST\", ");
    test::spit(project / "materials/brick.json", text);
    auto strict = cook(dir, project, dir / "strict", {"--usage", record.string()});
    CHECK(strict.exit_code == 1);
    CHECK(strict.output.find("materials/brick.json: ") != std::string::npos);
    CHECK(strict.output.find("ALPHA_TEST;NORMALMAP") != std::string::npos);
    const fs::path report_file = dir / "stale-report.json";
    auto lenient = cook(dir, project, dir / "lenient",
                        {"--usage", record.string(), "--usage-lenient", "--report", report_file.string()});
    REQUIRE_MESSAGE(lenient.exit_code == 0, lenient.output);
    CHECK(lenient.output.find("no longer builds") != std::string::npos);
    const auto report = nlohmann::json::parse(test::slurp(report_file));
    const auto stale = report["usage"]["stale"];
    CHECK(std::find(stale.begin(), stale.end(), "shaders/lit|Forward|NORMALMAP") != stale.end());
  }

  TEST_CASE("usage options are checked before any work - a bad record is named") {
    test::TempDir dir("usage-options");
    const fs::path assets = fs::path(KILN_SOURCE_DIR) / "assets";
    auto lonely = cook(dir, assets, dir / "out", {"--usage-lenient"});
    CHECK(lonely.exit_code == 2);
    CHECK(lonely.output.find("--usage-lenient needs --usage") != std::string::npos);
    auto shard = test::run_process({KILN_CLI, "cook", assets.string(), "--shard", "1/2", "--usage", "x.json",
                                    "--cache-root", (dir / "cache").string()});
    CHECK(shard.exit_code == 2);
    test::spit(dir / "bad.json", R"({"format": "kiln-usage", "version": 1, "variants": [3]})");
    auto bad = cook(dir, assets, dir / "out", {"--usage", (dir / "bad.json").string()});
    CHECK(bad.exit_code == 1);
    CHECK(bad.output.find((dir / "bad.json").string() + ": /variants/0: expected a non-empty string") !=
          std::string::npos);
    test::spit(dir / "empty.json", R"({"format": "kiln-usage", "version": 1})");
    auto empty = cook(dir, assets, dir / "out", {"--usage", (dir / "empty.json").string()});
    CHECK(empty.exit_code == 1);
    CHECK(empty.output.find("names no variant") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out" / "manifest.json"));
  }
}

TEST_SUITE("editor") {
  TEST_CASE("the editor's previews record what they drew - a cook by that record names what they never drew") {
    test::TempDir dir("usage-editor");
    const fs::path project = test::copy_assets(dir);
    const fs::path record = dir / "previews.usage.json";
    auto alone = test::run_process({KILN_CLI, "editor", project.string(), "--record-usage", record.string()});
    CHECK(alone.exit_code == 2);
    CHECK(alone.output.find("--record-usage records what the previews draw: add --previews") != std::string::npos);
    {
      test::ChildProcess editor({KILN_CLI, "editor", project.string(), "--previews", "--record-usage", record.string(),
                                 "--cache-root", (dir / "cache").string()},
                                test::lavapipe_env());
      for (int i = 0; i < 2; ++i) {  // ready, then every picture
        auto line = editor.read_line(std::chrono::seconds(120));
        REQUIRE_MESSAGE(line, "the editor printed nothing in 120 s");
      }
      editor.kill(SIGTERM);
      CHECK(editor.wait() == 0);
    }
    auto read = usage::read_usage(record);
    REQUIRE_MESSAGE(read, read.error().message);
    // Seven materials drawn (the post-process one has no picture): 5 lit x 3 passes, sky, ui_panel.
    CHECK(read->variants.size() == 17);
    CHECK(read->pipelines.size() == 17);
    CHECK(std::none_of(read->variants.begin(), read->variants.end(),
                       [](const std::string& v) { return v.find("post_bloom") != std::string::npos; }));
    auto strict = cook(dir, project, dir / "strict", {"--usage", record.string()});
    CHECK(strict.exit_code == 1);
    CHECK(strict.output.find("materials/bloom.json: variant shaders/post_bloom|Main|HDR in no usage record") !=
          std::string::npos);
    CHECK(strict.output.find("materials/brick.json: ") == std::string::npos);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("the player refuses a script that calls an engine function its set lacks - one only declared is no error") {
    test::TempDir dir("usage-host");
    auto full = cook(dir, fs::path(KILN_SOURCE_DIR) / "assets", dir / "full");
    REQUIRE_MESSAGE(full.exit_code == 0, full.output);
    // A set whose material lost the parameter behind a function: as a set cooked without that material.
    const auto without = [&](const std::string& material, const std::string& param, const fs::path& to) {
      test::rewrite_set(dir / "full", to, [&](runtime::PackKind, const std::string& name, std::vector<std::byte> b) {
        if (name != runtime::entry_name(runtime::EntryKind::kMaterial, material)) return b;
        auto record = runtime::decode_material_record(b, name);
        REQUIRE(record);
        auto values = record->params.at(param);
        record->params.erase(param);
        record->params["renamed"] = values;
        return runtime::encode_material_record(*record);
      });
    };
    // material_anim.lua calls engine.ui_panel_color.
    without("materials/ui_panel.json", "color", dir / "called");
    auto called = test::run_process({KILN_PLAYER, (dir / "called").string(), "--cache-root", (dir / "pc").string()},
                                    test::lavapipe_env());
    CHECK(called.exit_code == 1);
    CHECK(called.output.find("calls engine.ui_panel_color, which no material of this set has") != std::string::npos);
    // No script calls engine.metal_base_color: its scripts declare it, and run.
    without("materials/metal.json", "base_color", dir / "declared");
    auto declared = test::run_process({KILN_PLAYER, (dir / "declared").string(), "--cache-root", (dir / "pc").string()},
                                      test::lavapipe_env());
    CHECK_MESSAGE(declared.exit_code == 0, declared.output);
  }
}
