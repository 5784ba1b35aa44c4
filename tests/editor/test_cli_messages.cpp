// Messages that say what is actually wrong, through the real `kiln` process.
#include <doctest/doctest.h>

#include <fstream>

#include "child_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using test::copy_assets;

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("a cook whose report cannot be written fails - and says where") {
    test::TempDir dir("messages");
    const fs::path project = copy_assets(dir);
    const auto r =
        test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--report",
                           (dir / "no/such/dir/report.json").string(), "--cache-root", (dir / "cache").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "no/such/dir/report.json"), r.output);
    // Known before the work: no set is written, and the summary counts the error.
    CHECK_MESSAGE(contains(r.output, "no/such/dir/report.json: cannot write the report there (no such directory)"),
                  r.output);
    CHECK_MESSAGE(contains(r.output, "cook: 1 error, nothing written\n"), r.output);
    CHECK_FALSE(fs::exists(dir / "out"));
  }

  TEST_CASE("a failed cook says the output keeps its previous set only when it has one") {
    test::TempDir dir("messages");
    const fs::path project = copy_assets(dir);
    std::ofstream(project / "scripts" / "broken.lua") << "local x = \n";
    auto cook = [&] {
      return test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                                (dir / "cache").string()});
    };
    auto r = cook();
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "cook: 1 error, nothing written\n"), r.output);
    CHECK_FALSE(contains(r.output, "keeps its previous set"));
    fs::remove(project / "scripts" / "broken.lua");
    REQUIRE(cook().exit_code == 0);
    std::ofstream(project / "scripts" / "broken.lua") << "local x = \n";
    r = cook();
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(
        contains(r.output, "cook: 1 error, nothing written; " + (dir / "out").string() + " keeps its previous set"),
        r.output);
  }

  TEST_CASE("an empty stage or one without #version is an error at line 1 saying so") {
    test::TempDir dir("messages");
    std::ofstream(dir / "empty.frag") << "\n";
    auto r = test::run_process({KILN_CLI, "shader", "compile", (dir / "empty.frag").string(), "-o",
                                (dir / "e.spv").string(), "--cache-root", (dir / "cache").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "empty.frag:1: error: the file is empty"), r.output);
    std::ofstream(dir / "noversion.frag") << "layout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    r = test::run_process({KILN_CLI, "shader", "compile", (dir / "noversion.frag").string(), "-o",
                           (dir / "n.spv").string(), "--cache-root", (dir / "cache").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "noversion.frag:1: error: no #version directive"), r.output);
  }

  TEST_CASE("a broken texture in a cook is named by its source - not by a cache file") {
    test::TempDir dir("messages");
    const fs::path project = copy_assets(dir);
    std::ofstream(project / "textures/brick.png", std::ios::trunc) << std::string(3000, 'x');
    const auto r = test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(),
                                      "--cache-root", (dir / "cache").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "textures/brick.png: cannot convert to .tx"), r.output);
    CHECK_FALSE(contains(r.output, (dir / "cache").string()));
  }
}

TEST_SUITE("editor") {
  TEST_CASE("every bad pragma of a shader is reported - once - not once per material that uses it") {
    test::TempDir dir("messages");
    const fs::path project = copy_assets(dir);
    auto insert_after_version = [&](const std::string& lines) {
      std::ifstream in(project / "shaders/lit.frag");
      std::string text((std::istreambuf_iterator<char>(in)), {});
      text.insert(text.find('\n') + 1, lines);
      std::ofstream(project / "shaders/lit.frag", std::ios::trunc) << text;
    };
    insert_after_version("#pragma kiln bogus thing\n#pragma kiln passes\n");
    auto cook = [&] {
      return test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                                (dir / "cache").string()});
    };
    auto r = cook();
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "shaders/lit.frag:2: error: unknown '#pragma kiln bogus'"), r.output);
    CHECK(contains(r.output, "shaders/lit.frag:3: error: '#pragma kiln passes' names none"));
    auto count = [](const std::string& text, const std::string& part) {
      std::size_t n = 0;
      for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
      return n;
    };
    CHECK(count(r.output, "unknown '#pragma kiln bogus'") == 1);
    CHECK(contains(r.output, "materials/metal.json: /shader: shaders/lit does not load"));

    // Well-formed pragmas naming undeclared keywords: each is reported.
    fs::copy_file(fs::path(KILN_SOURCE_DIR) / "assets/shaders/lit.frag", project / "shaders/lit.frag",
                  fs::copy_options::overwrite_existing);
    insert_after_version("#pragma kiln invalid SKIN WHAT\n#pragma kiln ship NOPE\n");
    r = cook();
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "#pragma kiln invalid SKIN WHAT: unknown keyword 'WHAT'"), r.output);
    CHECK(contains(r.output, "#pragma kiln ship NOPE: unknown keyword 'NOPE'"));
  }
}
