// What a first hour of use expects of the commands, through the real `kiln` and `kiln-player`:
// sensible defaults (level 0, a thumbnail size, one frame for --render), -o that writes, and
// help and messages that list what is there.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "lavapipe.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

test::RunResult run_kiln(const test::TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), KILN_CLI);
  args.insert(args.end(), {"--cache-root", (dir / "cache").string()});
  return test::run_process(args);
}

// A PNG's width, from its IHDR.
std::uint32_t png_width(const fs::path& png) {
  const std::string bytes = test::slurp(png);
  REQUIRE(bytes.size() > 24);
  return std::uint32_t(std::uint8_t(bytes[16])) << 24 | std::uint32_t(std::uint8_t(bytes[17])) << 16 |
         std::uint32_t(std::uint8_t(bytes[18])) << 8 | std::uint32_t(std::uint8_t(bytes[19]));
}

const fs::path kBrick = fs::path(KILN_SOURCE_DIR) / "assets" / "textures" / "brick.png";

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("kiln texture export writes level 0 and thumb a 256-wide picture when not told otherwise") {
    test::TempDir dir("first-hour");
    auto r = run_kiln(dir, {"texture", "export", kBrick.string(), (dir / "default.png").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    r = run_kiln(dir, {"texture", "export", kBrick.string(), "--level", "0", (dir / "level0.png").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(test::slurp(dir / "default.png") == test::slurp(dir / "level0.png"));
    r = run_kiln(dir, {"texture", "thumb", kBrick.string(), (dir / "thumb.png").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(png_width(dir / "thumb.png") == 256);
    // A malformed number is still a usage error naming it.
    r = run_kiln(dir, {"texture", "thumb", kBrick.string(), "--size", "big", (dir / "bad.png").string()});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.output, "--size: needs a whole number above 0, got \"big\""), r.output);
  }

  TEST_CASE("kiln-player --render alone renders one frame - with --frames 0 it is a usage error") {
    test::TempDir dir("first-hour");
    REQUIRE(run_kiln(dir, {"cook", (fs::path(KILN_SOURCE_DIR) / "assets").string(), "--out", (dir / "out").string()})
                .exit_code == 0);
    auto played = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "pc").string(),
                                     "--render", (dir / "pictures").string(), "--json"},
                                    test::lavapipe_env());
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    CHECK(fs::exists(dir / "pictures" / "frame.png"));
    const auto at = played.output.find('{');
    REQUIRE(at != std::string::npos);
    CHECK(nlohmann::json::parse(played.output.substr(at))["gpu"]["frames"]["count"] == 1);
    // In plain output the line says where the pictures went.
    played = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "pc").string(), "--render",
                                (dir / "plain").string()},
                               test::lavapipe_env());
    REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    CHECK_MESSAGE(contains(played.output, "player: 1 frame, "), played.output);
    CHECK_MESSAGE(contains(played.output, ", 8 pictures in " + (dir / "plain").string() + "\n"), played.output);
    played = test::run_process({KILN_PLAYER, (dir / "out").string(), "--cache-root", (dir / "pc").string(), "--render",
                                (dir / "none").string(), "--frames", "0"},
                               test::lavapipe_env());
    CHECK(played.exit_code == 2);
    CHECK_MESSAGE(contains(played.output, "--render with --frames 0 draws nothing"), played.output);
  }

  TEST_CASE("kiln shader reflect -o writes the reflection it prints with --json") {
    test::TempDir dir("first-hour");
    const std::string shader = (fs::path(KILN_SOURCE_DIR) / "assets" / "shaders" / "lit").string();
    const auto printed = run_kiln(dir, {"shader", "reflect", shader, "--json"});
    REQUIRE_MESSAGE(printed.exit_code == 0, printed.output);
    const auto written = run_kiln(dir, {"shader", "reflect", shader, "-o", (dir / "lit.json").string()});
    REQUIRE_MESSAGE(written.exit_code == 0, written.output);
    CHECK_MESSAGE(contains(written.output, "reflection of 2 stages written to " + (dir / "lit.json").string()),
                  written.output);
    const auto file = nlohmann::json::parse(test::slurp(dir / "lit.json"));
    CHECK(file == nlohmann::json::parse(printed.output.substr(printed.output.find('{'))));
    CHECK(file["stages"].size() == 2);
  }

  TEST_CASE("kiln cache names every kind it has - in its help and when a kind is unknown") {
    test::TempDir dir("first-hour");
    auto r = run_kiln(dir, {"cache", "stats", "--kind", "foo"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.output, "unknown kind 'foo' (shaders, jit, textures or pipelines)"), r.output);
    r = run_kiln(dir, {"cache", "stats", "--kind", "pipelines"});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    for (const char* verb : {"stats", "clear"}) {
      CAPTURE(verb);
      r = test::run_process({KILN_CLI, "cache", verb, "--help"});
      CHECK(r.exit_code == 0);
      CHECK_MESSAGE(contains(r.output, "only this kind: shaders, jit, textures or pipelines"), r.output);
    }
  }

  TEST_CASE("a typo gets a did-you-mean naming the command - for flags and commands and settings and host functions") {
    test::TempDir dir("first-hour");
    auto r = run_kiln(dir, {"cook", "project", "--out", "o", "--jbos", "2"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.output, "kiln cook: unknown option --jbos (did you mean '--jobs'?)"), r.output);
    r = run_kiln(dir, {"cache", "stats", "--knd", "jit"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.output, "kiln cache stats: unknown option --knd (did you mean '--kind'?)"), r.output);
    r = run_kiln(dir, {"cokk"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.output, "kiln: unknown command 'cokk' (did you mean 'cook'?)"), r.output);
    r = run_kiln(dir, {"cache", "stat"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.output, "kiln cache: unknown command 'stat' (did you mean 'stats'?)"), r.output);
    // Nothing near: no guess.
    r = run_kiln(dir, {"cook", "project", "--out", "o", "--frobnicate"});
    CHECK_MESSAGE(contains(r.output, "kiln cook: unknown option --frobnicate; kiln cook --help lists its options"),
                  r.output);

    test::spit(dir / "kiln.json", R"({"cache": {"disk_maxx": "1GiB"}})");
    r = run_kiln(dir, {"--config", (dir / "kiln.json").string(), "config"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(contains(r.output,
                           "/cache/disk_maxx: unknown setting 'cache.disk_maxx' (did you mean "
                           "'cache.disk_max'?)"),
                  r.output);

    const fs::path project = test::copy_assets(dir);
    std::string script = test::slurp(project / "scripts" / "material_anim.lua");
    script.replace(script.find("engine.ui_panel_color"), 21, "engine.ui_panel_colr");
    test::spit(project / "scripts" / "material_anim.lua", script);
    r = run_kiln(dir, {"cook", project.string(), "--out", (dir / "out").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output,
                           "unknown host function 'engine.ui_panel_colr' (did you mean "
                           "'engine.ui_panel_color'?)"),
                  r.output);
  }

  TEST_CASE("kiln --help lists the commands that work on a project - not the cache's self-test - which still runs") {
    test::TempDir dir("first-hour");
    const auto help = run_kiln(dir, {"--help"});
    CHECK(help.exit_code == 0);
    CHECK(contains(help.output, "  cook "));
    CHECK_FALSE(contains(help.output, "probe"));
    const auto probe = run_kiln(dir, {"probe", "variants"});
    CHECK_MESSAGE(probe.exit_code == 0, probe.output);
    CHECK(contains(probe.output, "RESULT passed="));
  }
}
