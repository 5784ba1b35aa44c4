// Inputs beyond the limits in kiln/core/input_limits.h are refused before the work, with a
// message naming the file, what was found and the limit — through the real `kiln` commands.
#include <doctest/doctest.h>

#include <fstream>

#include "child_process.h"
#include "temp_dir.h"
#include "tiff_craft.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

test::RunResult kiln_cli(const test::TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), KILN_CLI);
  args.insert(args.end(), {"--cache-root", (dir / "cache").string()});
  return test::run_process(args);
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a small .tx claiming 100000x100000 is refused by name - not a crash") {
    test::TempDir dir("limits");
    const fs::path huge = dir / "huge100k.tx";
    test::write_crafted_tiff(huge, test::crafted_chain(100000, 100000, 4096, 4096));
    CHECK(fs::file_size(huge) < 2'000'000);
    for (const char* verb : {"export", "thumb", "info"}) {
      std::vector<std::string> args = {"texture", verb, huge.string()};
      if (std::string(verb) == "export") args.insert(args.end(), {"--level", "0", (dir / "h0.png").string()});
      if (std::string(verb) == "thumb") args.insert(args.end(), {"--size", "64", (dir / "t.png").string()});
      const auto r = kiln_cli(dir, args);
      CAPTURE(verb);
      CHECK(r.exit_code == 1);
      CHECK_MESSAGE(
          contains(r.output, "huge100k.tx: level 0: 100000x100000 is larger than the limit of 65536 pixels per side"),
          r.output);
    }
  }

  TEST_CASE("without a loadable libtiff a texture command fails with a message naming the file - not a crash") {
    // libtiff is loaded when the first TIFF is opened; here a damaged file is found first on the
    // library path.
    test::TempDir dir("limits");
    const fs::path libs = dir / "libs";
    fs::create_directories(libs);
    std::ofstream(libs / "libtiff.so.6") << "not a library";
    const fs::path tx = dir / "small.tx";
    test::write_crafted_tiff(tx, test::crafted_chain(64, 64, 16, 16));
    const std::map<std::string, std::string> env = {{"LD_LIBRARY_PATH", libs.string()}};
    const auto broken = test::run_process({KILN_CLI, "texture", "info", tx.string()}, env);
    CHECK(broken.exit_code == 1);
    CHECK_MESSAGE(contains(broken.output, "small.tx: cannot load libtiff: "), broken.output);
    const auto fine = test::run_process({KILN_CLI, "texture", "info", tx.string()});
    CHECK_MESSAGE(fine.exit_code == 0, fine.output);
    // A script run never needs it.
    const fs::path script = dir / "hello.lua";
    std::ofstream(script) << "print('hello')\n";
    const auto run = test::run_process({KILN_CLI, "script", "run", script.string(), "--jit", "off"}, env);
    CHECK_MESSAGE(run.exit_code == 0, run.output);
    CHECK(run.output == "hello\n");
  }

  TEST_CASE("exporting a level bigger than the budget is refused - a smaller level of the same file exports") {
    test::TempDir dir("limits");
    const fs::path big = dir / "big.tx";
    test::write_crafted_tiff(big, test::crafted_chain(60000, 60000, 256, 256));
    auto r = kiln_cli(dir, {"texture", "export", big.string(), "--level", "0", (dir / "l0.png").string(),
                            "--textures-memory-max", "256MiB"});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(
        contains(r.output,
                 "big.tx: level 0 is 60000x60000 (13.4 GiB as RGBA8), more than the 256 MiB a whole level may take"),
        r.output);
    CHECK_FALSE(fs::exists(dir / "l0.png"));
    r = kiln_cli(dir, {"texture", "export", big.string(), "--level", "10", (dir / "l10.png").string()});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(fs::exists(dir / "l10.png"));
  }

  TEST_CASE("a tile larger than the tile limit is refused before it is read") {
    test::TempDir dir("limits");
    const fs::path file = dir / "hugetile.tx";
    test::write_crafted_tiff(file, test::crafted_chain(256, 256, 65520, 65520));
    for (const char* verb : {"thumb", "info"}) {
      std::vector<std::string> args = {"texture", verb, file.string()};
      if (std::string(verb) == "thumb") args.insert(args.end(), {"--size", "64", (dir / "t.png").string()});
      const auto r = kiln_cli(dir, args);
      CAPTURE(verb);
      CHECK(r.exit_code == 1);
      CHECK_MESSAGE(contains(r.output, "hugetile.tx: level 0: tiles of 65520x65520 are larger than the limit"),
                    r.output);
    }
  }

  TEST_CASE("kiln script run refuses a directory - a device - and an oversized script by name") {
    test::TempDir dir("limits");
    fs::create_directory(dir / "scripts");
    auto r = kiln_cli(dir, {"script", "run", (dir / "scripts").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "scripts: not a regular file (a directory)"), r.output);
    r = kiln_cli(dir, {"script", "run", "/dev/zero"});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "/dev/zero: not a regular file (a device, FIFO or socket)"), r.output);
    {
      std::ofstream big(dir / "big.lua");
      const std::string line = "local x = 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16\n";
      for (std::size_t written = 0; written <= (std::size_t{9} << 20); written += line.size()) big << line;
    }
    r = kiln_cli(dir, {"script", "run", (dir / "big.lua").string()});
    CHECK(r.exit_code == 1);
    // Just past 9 MiB: the exact count says it is not 9 MiB.
    CHECK_MESSAGE(contains(r.output, "big.lua: 9.0 MiB (943"), r.output);
    CHECK_MESSAGE(contains(r.output, " bytes), more than the 8 MiB limit for a script"), r.output);
  }

  TEST_CASE("a material - a config file and a shader source over their limits are refused by name") {
    test::TempDir dir("limits");
    const fs::path project = dir / "project";
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
    {
      std::ofstream m(project / "materials/padded.json");
      m << R"({"shader": "shaders/unlit", "keywords": [)";
      for (int i = 0; i < 1'200'000; ++i) m << "\"FOG\",            ";
      m << R"("FOG"]})";
    }
    auto r = kiln_cli(dir, {"cook", project.string(), "--out", (dir / "out").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "materials/padded.json: 20.6 MiB, more than the 16 MiB limit for a material"),
                  r.output);
    fs::remove(project / "materials/padded.json");
    {
      std::ofstream s(project / "shaders/unlit.frag", std::ios::app);
      const std::string comment(1023, '/');
      for (int i = 0; i < 17 * 1024; ++i) s << comment << "\n";
    }
    r = kiln_cli(dir, {"cook", project.string(), "--out", (dir / "out").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "unlit.frag: 17.0 MiB ("), r.output);
    CHECK_MESSAGE(contains(r.output, " bytes), more than the 16 MiB limit for a shader source"), r.output);
  }
}

TEST_SUITE("editor") {
  TEST_CASE(
      "a script that keeps allocating stops at scripts.memory_max with its file:line - one that makes garbage runs") {
    test::TempDir dir("limits");
    const fs::path hoarder = dir / "hoarder.lua";
    std::ofstream(hoarder) << "local kept = {}\nlocal i = 0\nwhile true do\n  i = i + 1\n"
                              "  kept[#kept + 1] = string.rep(\"x\", 64) .. i\nend\n";
    // The same allocations, dropped at once: the collector keeps the live part small.
    const fs::path churn = dir / "churn.lua";
    std::ofstream(churn) << "local n = 0\nfor i = 1, 200000 do\n  local s = string.rep(\"x\", 64) .. i\n"
                            "  n = n + #s\nend\nprint(n)\n";
    for (const char* jit : {"on", "off"}) {
      CAPTURE(jit);
      auto r = kiln_cli(dir, {"script", "run", hoarder.string(), "--jit", jit, "--scripts-memory-max", "4MiB"});
      CHECK(r.exit_code == 1);
      CHECK_MESSAGE(contains(r.output, "hoarder.lua:5: script memory budget exhausted ("), r.output);
      CHECK_MESSAGE(contains(r.output, "over scripts.memory_max = 4MiB)"), r.output);
      // The environment sets it as well.
      r = test::run_process(
          {KILN_CLI, "script", "run", hoarder.string(), "--jit", jit, "--cache-root", (dir / "cache").string()},
          {{"KILN_SCRIPTS_MEMORY_MAX", "2MiB"}});
      CHECK_MESSAGE(contains(r.output, "over scripts.memory_max = 2MiB)"), r.output);
      // 200,000 strings of about 70 bytes (14 MB in all) run in 4 MiB.
      r = kiln_cli(dir, {"script", "run", churn.string(), "--jit", jit, "--scripts-memory-max", "4MiB"});
      CHECK_MESSAGE(r.exit_code == 0, r.output);
      CHECK(r.output == "13888895\n");
    }
  }
}
