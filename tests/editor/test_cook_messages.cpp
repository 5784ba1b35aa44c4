// What the cook and `kiln shader` say, through the real `kiln`: one `path:line:column: ` form,
// paths as the project names them (no "./", each named once), no compiler noise, usage errors
// for a cook that cannot start, and digests that name the output.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>

#include "child_process.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// `kiln ARGS...` run from `cwd`, with the cache under `dir`.
test::RunResult kiln_in(const test::TempDir& dir, const fs::path& cwd, const std::string& args) {
  return test::run_process({"/bin/sh", "-c",
                            "cd '" + cwd.string() + "' && exec '" KILN_CLI "' " + args + " --cache-root '" +
                                (dir / "cache").string() + "'"});
}

// The text after `marker` up to the end of its line.
std::string line_with(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  if (at == std::string::npos) return {};
  const auto start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

// A syntax error before `main` in a stage file: "nope x;" names an unknown type.
void break_shader(const fs::path& stage) {
  std::string text = test::slurp(stage);
  text.replace(text.find("void main"), 9, "nope x; void main");
  test::spit(stage, text);
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("cook errors use one path:line:column form with no space - and a cook of . names files without ./") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    std::string script = test::slurp(project / "scripts" / "gameplay_update.lua");
    script.replace(script.find("local count = 64"), 16, "local count = true; count = 1");
    test::spit(project / "scripts" / "gameplay_update.lua", script);
    test::spit(project / "materials" / "sky.json", "{\"shader\": \"shaders/unlit\",\n  ");
    const auto r = kiln_in(dir, project, "cook . --out ../out");
    CHECK(r.exit_code == 1);
    const std::regex script_error(R"((^|\n)scripts/gameplay_update\.lua:3:[0-9]+: type mismatch)");
    const std::regex json_error(R"((^|\n)materials/sky\.json:[0-9]+:[0-9]+: parse error)");
    CHECK_MESSAGE(std::regex_search(r.output, script_error), r.output);
    CHECK_MESSAGE(std::regex_search(r.output, json_error), r.output);
    CHECK_FALSE(contains(r.output, "./"));
  }

  TEST_CASE("a texture that does not convert is named once - as the project names it") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    test::spit(project / "textures" / "white.png", test::slurp(project / "textures" / "white.png").substr(0, 100));
    const auto r = kiln_in(dir, project, "cook . --out ../out");
    CHECK(r.exit_code == 1);
    const std::string line = line_with(r.output, "cannot convert to .tx");
    CHECK_MESSAGE(line.rfind("textures/white.png: cannot convert to .tx: ", 0) == 0, r.output);
    CHECK_MESSAGE(line.find("white.png", 10) == std::string::npos, line);
  }

  TEST_CASE("glslang's errors arrive without its empty token and its closing compilation terminated") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    break_shader(project / "shaders" / "unlit.frag");
    const auto r = kiln_in(dir, project, "cook . --out ../out");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "shaders/unlit.frag:"), r.output);
    CHECK_MESSAGE(contains(r.output, ": error: syntax error, unexpected IDENTIFIER"), r.output);
    CHECK_FALSE(contains(r.output, "'' :"));
    CHECK_FALSE(contains(r.output, "compilation terminated"));
    CHECK_FALSE(contains(r.output, " \n"));
  }

  TEST_CASE("a cook of a project that does not exist is a usage error in one line") {
    test::TempDir dir("cook-messages");
    const auto r = kiln_in(dir, dir.path(), "cook nowhere --out out");
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.output == "kiln cook: nowhere: no such project directory\n", r.output);
  }

  TEST_CASE("kiln cook --out inside the project's sources - or the project itself - is refused before any work") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    for (const std::string out : {"textures/cooked", "shaders", ".", ".."}) {
      const auto r = kiln_in(dir, project, "cook . --out " + out);
      CHECK_MESSAGE(r.exit_code == 2, out << ": " << r.output);
      CHECK_MESSAGE(contains(r.output, "kiln cook: --out " + out + " "), r.output);
    }
    CHECK_FALSE(fs::exists(project / "textures" / "cooked"));
    CHECK_FALSE(fs::exists(project / "manifest.json"));
    // Beside the sources, inside the project, is a place for it.
    CHECK(kiln_in(dir, project, "cook . --out build/cooked").exit_code == 0);
    CHECK(fs::exists(project / "build" / "cooked" / "manifest.json"));
  }

  TEST_CASE("a define that names a declared keyword is refused - from -D and from cook.defines") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    const auto compiled = kiln_in(dir, project, "shader compile shaders/lit.frag -DFOG");
    CHECK(compiled.exit_code != 0);
    CHECK_MESSAGE(contains(compiled.output, "the define FOG (-D, cook.defines) names a keyword"), compiled.output);
    // A define the shader does not declare as a keyword is the define's business.
    CHECK(kiln_in(dir, project, "shader compile shaders/lit.frag -DQUALITY=2").exit_code == 0);

    test::spit(project / "kiln.json", R"({"cook": {"defines": ["SKIN=1"]}})");
    const auto cooked = kiln_in(dir, project, "cook . --out ../out");
    CHECK(cooked.exit_code == 1);
    CHECK_MESSAGE(contains(cooked.output, "the define SKIN (-D, cook.defines) names a keyword"), cooked.output);
    CHECK_FALSE(fs::exists(dir / "out"));
  }

  TEST_CASE("kiln shader compile prints a digest that names its output - defines included") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    const auto plain = kiln_in(dir, project, "shader compile shaders/unlit.frag");
    const auto defined = kiln_in(dir, project, "shader compile shaders/unlit.frag -DTINT_SCALE=2");
    REQUIRE_MESSAGE(plain.exit_code == 0, plain.output);
    REQUIRE_MESSAGE(defined.exit_code == 0, defined.output);
    const auto digest = [](const std::string& out) {
      const auto at = out.find("digest=");
      return at == std::string::npos ? std::string() : out.substr(at + 7, 12);
    };
    CHECK(digest(plain.output).size() == 12);
    CHECK_MESSAGE(digest(plain.output) != digest(defined.output), plain.output << defined.output);
    CHECK_MESSAGE(contains(defined.output, " defines=TINT_SCALE=2 "), defined.output);
    CHECK_FALSE(contains(plain.output, "defines="));
    // The same command names the same output.
    CHECK(digest(kiln_in(dir, project, "shader compile shaders/unlit.frag -DTINT_SCALE=2").output) ==
          digest(defined.output));
  }
  TEST_CASE("a cook lists a shader's compile errors together with a material's - in one run") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    test::spit(project / "materials" / "sky.json", "{\"shader\": ");
    break_shader(project / "shaders" / "lit.frag");
    const auto r = kiln_in(dir, project, "cook . --out ../out");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(contains(r.output, "\nmaterials/sky.json:"), r.output);
    CHECK_MESSAGE(contains(r.output, "\nshaders/lit.frag:"), r.output);
    CHECK_MESSAGE(contains(r.output, "cook: 2 errors, nothing written"), r.output);
    CHECK_FALSE(fs::exists(dir / "out"));
  }

  TEST_CASE("kiln shader compile names a broken file as the cook does - relative to where it runs") {
    test::TempDir dir("cook-messages");
    const fs::path project = test::copy_assets(dir);
    break_shader(project / "shaders" / "unlit.frag");
    const auto r = kiln_in(dir, project, "shader compile shaders/unlit.frag");
    CHECK(r.exit_code == 1);
    const std::regex located(R"((^|\n)shaders/unlit\.frag:[0-9]+: error: syntax error)");
    CHECK_MESSAGE(std::regex_search(r.output, located), r.output);
    CHECK_FALSE(contains(r.output, project.string()));
  }
}
