// A cook reads nothing outside the project: includes, material textures, shader names and
// symbolic links that lead elsewhere are errors naming the file and the line or JSON pointer, and
// nothing is written. Each case runs the real `kiln cook` (or `kiln shader compile`).
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "child_process.h"
#include "temp_dir.h"

using namespace kiln;
namespace fs = std::filesystem;

namespace {

struct Setup {
  test::TempDir dir{"project-paths"};
  fs::path project = dir / "project";
  fs::path outside = dir / "outside";
  Setup() {
    fs::copy(fs::path(KILN_SOURCE_DIR) / "assets", project, fs::copy_options::recursive);
    fs::create_directories(outside);
    std::ofstream(outside / "secret.glsl") << "// build-machine secret\n";
    fs::copy_file(project / "textures/sky.png", outside / "secret.png");
    std::ofstream(outside / "ext.lua") << "return 1\n";
  }
  test::RunResult cook() {
    return test::run_process({KILN_CLI, "cook", project.string(), "--out", (dir / "out").string(), "--cache-root",
                              (dir / "cache").string()});
  }
  void append(const fs::path& file, const std::string& text) { std::ofstream(project / file, std::ios::app) << text; }
  // Replaces the first line starting with `prefix` in a project file.
  void replace_line(const fs::path& file, const std::string& prefix, const std::string& line) {
    std::ifstream in(project / file);
    std::string text, l;
    bool done = false;
    while (std::getline(in, l)) {
      if (!done && l.rfind(prefix, 0) == 0) l = line, done = true;
      text += l + "\n";
    }
    REQUIRE(done);
    std::ofstream(project / file, std::ios::trunc) << text;
  }
  int line_of(const fs::path& file, const std::string& prefix) {
    std::ifstream in(project / file);
    int n = 0;
    for (std::string l; std::getline(in, l);)
      if (++n, l.rfind(prefix, 0) == 0) return n;
    return -1;
  }
};

void check_refused(const test::RunResult& r, const fs::path& out, const std::string& expected) {
  CHECK(r.exit_code == 1);
  CHECK_MESSAGE(r.output.find(expected) != std::string::npos, "expected '" << expected << "' in:\n" << r.output);
  CHECK(r.output.find("build-machine secret") == std::string::npos);
  CHECK_FALSE(fs::exists(out / "manifest.json"));
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("an include that climbs out of the project is an error at its line - nothing is cooked") {
    Setup s;
    std::string up;
    for (fs::path p = s.project / "shaders"; p != p.root_path(); p = p.parent_path()) up += "../";
    const std::string relative_secret = up + fs::relative(s.outside / "secret.glsl", "/").generic_string();
    s.replace_line("shaders/lit.frag", "#include \"common/camera.glsl\"", "#include \"" + relative_secret + "\"");
    const int line = s.line_of("shaders/lit.frag", "#include \"../");
    const auto r = s.cook();
    check_refused(r, s.dir / "out", "lit.frag:" + std::to_string(line) + ": error:");
    CHECK(r.output.find("leads outside the project") != std::string::npos);
  }

  TEST_CASE("an absolute include is an error at its line") {
    Setup s;
    s.replace_line("shaders/unlit.frag", "#include \"common/camera.glsl\"",
                   "#include \"" + (s.outside / "secret.glsl").string() + "\"");
    const int line = s.line_of("shaders/unlit.frag", "#include \"/");
    check_refused(s.cook(), s.dir / "out", "unlit.frag:" + std::to_string(line) + ": error:");
  }

  TEST_CASE("an include through a symbolic link that leads outside is an error") {
    Setup s;
    fs::create_symlink(s.outside / "secret.glsl", s.project / "shaders/common/linked.glsl");
    s.replace_line("shaders/unlit.frag", "#include \"common/camera.glsl\"", "#include \"common/linked.glsl\"");
    const auto r = s.cook();
    check_refused(r, s.dir / "out", "leads outside the project");
    CHECK(r.output.find("unlit.frag:") != std::string::npos);
  }

  TEST_CASE("absolute - climbing and linked texture paths in a material are errors at their JSON pointer") {
    Setup s;
    SUBCASE("absolute") {
      std::ofstream(s.project / "materials/sky.json", std::ios::trunc)
          << R"({"shader": "shaders/unlit", "textures": {"main": ")" << (s.outside / "secret.png").string() << R"("}})";
      check_refused(
          s.cook(), s.dir / "out",
          "materials/sky.json: /textures/main: '" + (s.outside / "secret.png").string() + "' is an absolute path");
    }
    SUBCASE("climbing") {
      std::ofstream(s.project / "materials/sky.json", std::ios::trunc)
          << R"({"shader": "shaders/unlit", "textures": {"main": "textures/../../outside/secret.png"}})";
      check_refused(s.cook(), s.dir / "out",
                    "materials/sky.json: /textures/main: 'textures/../../outside/secret.png' leaves the project");
    }
    SUBCASE("a symbolic link") {
      fs::create_symlink(s.outside / "secret.png", s.project / "textures/linked.png");
      std::ofstream(s.project / "materials/sky.json", std::ios::trunc)
          << R"({"shader": "shaders/unlit", "textures": {"main": "textures/linked.png"}})";
      check_refused(s.cook(), s.dir / "out",
                    "materials/sky.json: /textures/main: textures/linked.png leads outside the project");
    }
    SUBCASE("a shader name that climbs") {
      std::ofstream(s.project / "materials/sky.json", std::ios::trunc) << R"({"shader": "../outside/secret"})";
      check_refused(s.cook(), s.dir / "out", "materials/sky.json: /shader: '../outside/secret' leaves the project");
    }
  }

  TEST_CASE("a script linked from outside the project is an error under its project name") {
    Setup s;
    fs::create_symlink(s.outside / "ext.lua", s.project / "scripts/ext.lua");
    const auto r = s.cook();
    check_refused(r, s.dir / "out", "scripts/ext.lua: leads outside the project");
    CHECK(r.output.find("../outside/ext.lua") == std::string::npos);
  }

  TEST_CASE("a material linked from outside the project is an error under its project name - its text unread") {
    Setup s;
    // Not JSON: read, it would say so, and show its text.
    std::ofstream(s.outside / "ext.json") << "build-machine secret\n";
    fs::create_symlink(s.outside / "ext.json", s.project / "materials/ext.json");
    const auto r = s.cook();
    check_refused(r, s.dir / "out", "materials/ext.json: leads outside the project");
    CHECK(r.output.find("materials/ext.json: line") == std::string::npos);
    // The materials beside it are read and found sound: that is the one error.
    CHECK(r.output.find("cook: 1 error, nothing written") != std::string::npos);
  }

  TEST_CASE("links inside the project are followed - a project reached through a link cooks") {
    Setup s;
    fs::create_symlink(s.project / "textures/sky.png", s.project / "textures/sky_alias.png");
    std::ofstream(s.project / "materials/sky.json", std::ios::trunc)
        << R"({"shader": "shaders/unlit", "textures": {"main_texture": "textures/sky_alias.png"}})";
    fs::create_directory_symlink(s.project, s.dir / "project_link");
    s.project = s.dir / "project_link";
    const auto r = s.cook();
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(fs::exists(s.dir / "out/manifest.json"));
  }

  TEST_CASE("kiln shader compile refuses an include outside its root and -I directories") {
    Setup s;
    const fs::path shaders = s.dir / "shaders";  // the root of a file outside the working directory: its own directory
    fs::create_directories(shaders);
    std::ofstream(shaders / "leak.frag")
        << "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \""
        << (s.outside / "secret.glsl").string() << "\"\nlayout(location=0) out vec4 c;\nvoid main() { c = vec4(1); }\n";
    auto r = test::run_process(
        {KILN_CLI, "shader", "compile", (shaders / "leak.frag").string(), "-o", (s.dir / "leak.spv").string()});
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("leak.frag:3: error:") != std::string::npos);
    CHECK(r.output.find("leads outside") != std::string::npos);
    // Through -I, the same directory is allowed.
    std::ofstream(shaders / "ok.frag")
        << "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"secret.glsl\"\n"
        << "layout(location=0) out vec4 c;\nvoid main() { c = vec4(1); }\n";
    r = test::run_process({KILN_CLI, "shader", "compile", (shaders / "ok.frag").string(), "-I", s.outside.string(),
                           "-o", (s.dir / "ok.spv").string()});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
  }
}
