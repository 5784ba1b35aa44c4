#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "command_table.h"
#include "kiln/core/runtime_library.h"
#include "tools_plugin.h"
#include "kiln/textures/image.h"
#include "oiio_oracle.h"
#include "temp_dir.h"
#include "test_files.h"
#include "tx_fixtures.h"

using namespace kiln;
namespace fs = std::filesystem;

TEST_SUITE("editor") {
  TEST_CASE("kiln config --json resolves flag over env over file - as the real process") {
    test::TempDir dir("cli");
    std::ofstream(dir / "kiln.json") << R"({"cache": {"root": "c", "keep_builds": 7}, "jobs": 2})";
    auto r = test::run_process({KILN_CLI, "config", "--json", "--config", (dir / "kiln.json").string(), "--jobs", "5"},
                               {{"KILN_CACHE_KEEP_BUILDS", "8"}, {"KILN_JOBS", "3"}});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    auto j = nlohmann::json::parse(r.output);
    CHECK(j["settings"]["jobs"]["value"] == 5);
    CHECK(j["settings"]["jobs"]["origin"] == "flag --jobs");
    CHECK(j["settings"]["cache.keep_builds"]["value"] == 8);
    CHECK(j["settings"]["cache.root"]["value"] == (dir / "c").string());
    CHECK(j["settings"]["cache.root"]["origin"] == "file");
  }

  TEST_CASE("kiln reports bad configuration and usage with exit code 2") {
    test::TempDir dir("cli");
    std::ofstream(dir / "kiln.json") << R"({"jobs": "many"})";
    auto r = test::run_process({KILN_CLI, "info", "--config", (dir / "kiln.json").string()});
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("kiln.json: /jobs: expected a whole number") != std::string::npos);
    CHECK(test::run_process({KILN_CLI, "info", "--no-such-flag"}).exit_code == 2);
    CHECK(test::run_process({KILN_CLI, "frobnicate"}).exit_code == 2);
  }

  TEST_CASE("kiln cache verify and prune run on the configured root") {
    test::TempDir dir("cli");
    auto r = test::run_process({KILN_CLI, "cache", "verify", "--json", "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    auto j = nlohmann::json::parse(r.output);
    CHECK(j["blobs"] == 0);
    CHECK(j["corrupt"] == 0);
    r = test::run_process({KILN_CLI, "cache", "prune", "--cache-root", (dir / "cache").string()});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("prune ") == 0);
  }

  TEST_CASE(
      "kiln runs the commands that build in its tools plugin - and says so when the plugin is missing or not its own") {
    test::TempDir dir("cli");
    const fs::path plugin = fs::path(KILN_CLI).parent_path() / "kiln-tools.so";
    const std::string root = (dir / "cache").string();
    auto verify = test::run_process({KILN_CLI, "cache", "verify", "--json", "--cache-root", root});
    REQUIRE_MESSAGE(verify.exit_code == 0, verify.output);
    CHECK(nlohmann::json::parse(verify.output)["corrupt"] == 0);
    // A failure keeps its exit code and message.
    auto missing = test::run_process({KILN_CLI, "texture", "info", (dir / "none.tx").string()});
    CHECK(missing.exit_code == 1);
    CHECK(missing.output.find("none.tx") != std::string::npos);
    // kiln alone: scripts and settings still run, a command that builds names what is missing.
    const auto lone = dir / "lone" / "kiln";
    fs::create_directories(lone.parent_path());
    fs::copy_file(KILN_CLI, lone);
    fs::permissions(lone, fs::perms::owner_all);
    std::ofstream(dir / "one.lua") << "print(6 * 7)\n";
    auto script = test::run_process({lone.string(), "script", "run", (dir / "one.lua").string(), "--jit", "off"});
    CHECK(script.exit_code == 0);
    CHECK(script.output == "42\n");
    CHECK(test::run_process({lone.string(), "config"}).exit_code == 0);
    auto alone = test::run_process({lone.string(), "cache", "verify", "--cache-root", root});
    CHECK(alone.exit_code == 1);
    CHECK(alone.output == "kiln cache verify: the tools plugin (kiln-tools.so) is not installed beside this program\n");
    // Another library in its place is refused by name, before anything of it runs.
    fs::copy_file(fs::path(KILN_CLI).parent_path() / "kiln-jitc.so", lone.parent_path() / "kiln-tools.so");
    auto other = test::run_process({lone.string(), "cook", "x", "--out", (dir / "out").string()});
    CHECK(other.exit_code == 1);
    CHECK_MESSAGE(other.output.find("kiln cook: " + (lone.parent_path() / "kiln-tools.so").string() +
                                    ": not this Kiln's tools plugin (no kiln_tools_build_id)") == 0,
                  other.output);
    // The plugin of another build (its identity changed in a copy) is refused: the command line it
    // would be handed may not be the one it reads.
    std::string bytes = test::slurp(plugin);
    const std::string id = KILN_TOOLS_BUILD_ID;
    const auto at = bytes.find(id);
    REQUIRE(at != std::string::npos);
    bytes[at] = bytes[at] == '0' ? '1' : '0';
    fs::remove(lone.parent_path() / "kiln-tools.so");
    test::spit(lone.parent_path() / "kiln-tools.so", bytes);
    auto foreign = test::run_process({lone.string(), "cache", "verify", "--cache-root", root});
    CHECK(foreign.exit_code == 1);
    CHECK_MESSAGE(foreign.output.find("a tools plugin built from another Kiln than this program") != std::string::npos,
                  foreign.output);
    CHECK(!fs::exists(root + "/shaders"));  // nothing of it ran
  }

  TEST_CASE("an installed kiln runs scripts and the commands that build through the tools plugin installed with it") {
    test::TempDir dir("cli");
    const std::string prefix = (dir / "prefix").string();
    // Installed as a shipped tree is: stripped of debug information.
    auto installed = test::run_process(
        {KILN_CMAKE, "--install", KILN_BINARY_DIR, "--prefix", prefix, "--component", "tools", "--strip"});
    REQUIRE_MESSAGE(installed.exit_code == 0, installed.output);
    for (const char* program : {"/bin/kiln", "/lib/kiln/kiln-tools.so", "/bin/kiln-player", "/lib/kiln/kiln-jitc.so"}) {
      const auto sections = test::run_process({"/usr/bin/readelf", "-S", "-W", prefix + program});
      REQUIRE_MESSAGE(sections.exit_code == 0, sections.output);
      CHECK_MESSAGE(sections.output.find(".debug_info") == std::string::npos, program);
      CHECK_MESSAGE(sections.output.find(".symtab") == std::string::npos, program);
    }
    const std::string kiln = prefix + "/bin/kiln";
    std::ofstream(dir / "one.lua") << "print(6 * 7)\n";
    auto script = test::run_process(
        {kiln, "script", "run", (dir / "one.lua").string(), "--cache-root", (dir / "cache").string()});
    CHECK(script.exit_code == 0);
    CHECK(script.output == "42\n");
    auto verify = test::run_process({kiln, "cache", "verify", "--json", "--cache-root", (dir / "cache").string()});
    REQUIRE_MESSAGE(verify.exit_code == 0, verify.output);
    CHECK(nlohmann::json::parse(verify.output)["corrupt"] == 0);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("kiln shader compile: a second process hits the disk and writes the same SPIR-V") {
    test::TempDir dir("cli");
    const std::string shader = std::string(KILN_SOURCE_DIR) + "/assets/shaders/lit.frag";
    const std::map<std::string, std::string> env = {{"KILN_CACHE_ROOT", (dir / "cache").string()}};
    auto first = test::run_process({KILN_CLI, "shader", "compile", shader, "--keywords", "FOG,SKIN", "--pass",
                                    "Forward", "--json", "-o", (dir / "a.spv").string()},
                                   env);
    REQUIRE_MESSAGE(first.exit_code == 0, first.output);
    auto second = test::run_process({KILN_CLI, "shader", "compile", shader, "--keywords", "SKIN,FOG", "--pass",
                                     "Forward", "--json", "-o", (dir / "b.spv").string()},
                                    env);
    REQUIRE_MESSAGE(second.exit_code == 0, second.output);
    CHECK(nlohmann::json::parse(first.output)["result"] == "compiled");
    CHECK(nlohmann::json::parse(second.output)["result"] == "disk hit");
    std::ifstream a(dir / "a.spv", std::ios::binary), b(dir / "b.spv", std::ios::binary);
    const std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
    CHECK(sa.size() > 1000);
    CHECK(sa == sb);
    // The kill switch: no persistent level, so a compile again.
    auto off = test::run_process({KILN_CLI, "shader", "compile", shader, "--keywords", "FOG,SKIN", "--pass", "Forward",
                                  "--json", "--shaders-disk-cache", "false"},
                                 env);
    REQUIRE_MESSAGE(off.exit_code == 0, off.output);
    CHECK(nlohmann::json::parse(off.output)["result"] == "compiled");
  }

  TEST_CASE("kiln shader compile reports an unknown keyword and a broken shader with exit code 1") {
    test::TempDir dir("cli");
    const std::map<std::string, std::string> env = {{"KILN_CACHE_ROOT", (dir / "cache").string()}};
    const std::string shader = std::string(KILN_SOURCE_DIR) + "/assets/shaders/lit.frag";
    auto r = test::run_process({KILN_CLI, "shader", "compile", shader, "--keywords", "FOGG"}, env);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("unknown keyword 'FOGG'") != std::string::npos);
    std::ofstream(dir / "bad.frag") << "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = nope; }\n";
    r = test::run_process({KILN_CLI, "shader", "compile", (dir / "bad.frag").string()}, env);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find((dir / "bad.frag").string() + ":3: error: 'nope' : undeclared identifier") !=
          std::string::npos);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("kiln texture info describes a maketx file - and names a broken one") {
    test::TempDir dir("cli");
    const auto tx = test::make_tx(dir, "t", 300, 200, 4);
    auto r = test::run_process({KILN_CLI, "texture", "info", tx.string(), "--json"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    auto j = nlohmann::json::parse(r.output);
    CHECK(j["channels"] == 4);
    CHECK(j["format"] == "8-bit uint");
    CHECK(j["levels"].size() == 9);
    CHECK(j["levels"][1]["width"] == 150);
    CHECK(j["levels"][0]["tiles_x"] == 5);
    CHECK(j["average_color"].size() == 4);
    std::ofstream(dir / "bad.tx") << "nope";
    r = test::run_process({KILN_CLI, "texture", "info", (dir / "bad.tx").string()});
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("bad.tx: not a .tx file (not a TIFF)") != std::string::npos);
    // A source image, and a file that is not there, are named for what they are.
    r = test::run_process(
        {KILN_CLI, "texture", "info", (std::filesystem::path(KILN_SOURCE_DIR) / "assets/textures/brick.png").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find("brick.png: not a .tx file (a PNG image): kiln texture export and thumb read source "
                                "images, a cook converts them") != std::string::npos,
                  r.output);
    r = test::run_process({KILN_CLI, "texture", "info", (dir / "absent.tx").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find("absent.tx: cannot open texture: No such file or directory") != std::string::npos,
                  r.output);
  }

  TEST_CASE("kiln texture export keeps a 16-bit or float file's precision - a 16-bit PNG as oiiotool writes it") {
    test::TempDir dir("cli");
    const std::string cache_flag = "--cache-root=" + (dir / "cache").string();
    const auto run = [](const std::string& command) { return test::run_process({"/bin/sh", "-c", command}); };
    const std::string d = dir.path().string() + "/";
    // A 16-bit opaque file: the oracle is oiiotool's own 16-bit PNG, exactly.
    REQUIRE(run("/usr/bin/oiiotool --pattern noise 64x48 3 -d uint16 -o " + d + "s16.tif && /usr/bin/maketx " + d +
                "s16.tif -d uint16 -o " + d + "t16.tx")
                .exit_code == 0);
    auto r = test::run_process({KILN_CLI, "texture", "export", d + "t16.tx", d + "k16.png", cache_flag});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("64x48 16-bit from level 0") != std::string::npos);
    const std::string k16 = test::slurp(d + "k16.png");
    REQUIRE(k16.size() > 24);
    CHECK(int(k16[24]) == 16);  // the IHDR's bit depth
    REQUIRE(run("/usr/bin/oiiotool " + d + "t16.tx -o " + d + "o16.png").exit_code == 0);
    r = run("/usr/bin/oiiotool " + d + "k16.png --ch R,G,B " + d + "o16.png --diff");
    CHECK_MESSAGE(r.exit_code == 0, r.output);

    // A float file with alpha: 16 bits of it, within two steps of oiiotool's 16-bit conversion.
    REQUIRE(run("/usr/bin/oiiotool --pattern noise 64x64 4 -d float -o " + d + "f.exr && /usr/bin/maketx " + d +
                "f.exr -d float -o " + d + "f.tx")
                .exit_code == 0);
    r = test::run_process({KILN_CLI, "texture", "export", d + "f.tx", d + "kf.png", cache_flag});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    REQUIRE(run("/usr/bin/oiiotool " + d + "f.tx -d uint16 -o " + d + "of.png").exit_code == 0);
    r = run("/usr/bin/oiiotool " + d + "kf.png " + d + "of.png --fail 4e-5 --diff");
    CHECK_MESSAGE(r.exit_code == 0, r.output);
    // An 8-bit file stays an 8-bit PNG.
    const auto tx = test::make_tx(dir, "t8", 40, 30, 4);
    REQUIRE(test::run_process({KILN_CLI, "texture", "export", tx.string(), d + "k8.png", cache_flag}).exit_code == 0);
    CHECK(int(test::slurp(d + "k8.png")[24]) == 8);
  }

  TEST_CASE("kiln texture export and thumb write PNGs through the tiles - and refuse bad requests") {
    test::TempDir dir("cli");
    const auto tx = test::make_tx(dir, "t", 300, 200, 4);
    const std::string cache_flag = "--cache-root=" + (dir / "cache").string();
    auto r = test::run_process(
        {KILN_CLI, "texture", "export", tx.string(), "--level", "1", (dir / "l1.png").string(), cache_flag});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("150x100 from level 1") != std::string::npos);
    // What oiiotool writes: straight colour (maketx stored it premultiplied), within one step.
    r = test::run_process({"/usr/bin/oiiotool", tx.string(), "--selectmip", "1", "-o", (dir / "o1.png").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto exported = kiln::textures::read_image(dir / "l1.png"),
               oracle = kiln::textures::read_image(dir / "o1.png");
    REQUIRE(exported);
    REQUIRE(oracle);
    REQUIRE(exported->pixels.size() == oracle->pixels.size());
    int worst = 0;
    for (std::size_t i = 0; i < oracle->pixels.size(); ++i)
      worst = std::max(worst, std::abs(int(exported->pixels[i]) - int(oracle->pixels[i])));
    CHECK(worst <= 1);

    r = test::run_process(
        {KILN_CLI, "texture", "thumb", tx.string(), "--size", "64", (dir / "thumb.png").string(), cache_flag});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("64x43 from level 2") != std::string::npos);  // 75x50 is the smallest level >= 64

    r = test::run_process(
        {KILN_CLI, "texture", "export", tx.string(), "--level", "12", (dir / "x.png").string(), cache_flag});
    CHECK(r.exit_code == 1);
    CHECK(r.output.find(tx.string() + ": no level 12 (the file has 9)") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "x.png"));
    r = test::run_process({KILN_CLI, "texture", "thumb", tx.string(), "--size", "big", (dir / "x.png").string()});
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("--size: needs a whole number above 0, got \"big\"") != std::string::npos);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("kiln shader compile writes every stage of a shader - in its first declared pass unless told") {
    test::TempDir dir("cli-stages");
    const std::string shader = std::string(KILN_SOURCE_DIR) + "/assets/shaders/lit";  // lit.vert + lit.frag
    const std::map<std::string, std::string> env = {{"KILN_CACHE_ROOT", (dir / "cache").string()}};
    auto r =
        test::run_process({KILN_CLI, "shader", "compile", shader, "--json", "-o", (dir / "lit.spv").string()}, env);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto j = nlohmann::json::parse(r.output);
    CHECK(j["pass"] == "Forward");  // #pragma kiln passes Forward Shadow Depth
    CHECK(j["stages"] == nlohmann::json::array({"vert", "frag"}));
    for (const auto& [stage, model] : {std::pair{"vert", "Vertex"}, std::pair{"frag", "Fragment"}}) {
      const auto spv = dir / ("lit." + std::string(stage) + ".spv");
      CAPTURE(spv);
      REQUIRE(std::filesystem::is_regular_file(spv));
      CHECK(test::run_process({"/usr/bin/spirv-val", spv.string()}).exit_code == 0);
      auto dis = test::run_process({"/usr/bin/spirv-dis", spv.string()});
      CHECK(dis.output.find("OpEntryPoint " + std::string(model)) != std::string::npos);
    }
    // Into a directory: <shader>.<stage>.spv.
    r = test::run_process({KILN_CLI, "shader", "compile", shader, "-o", (dir / "out").string() + "/"}, env);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(std::filesystem::is_regular_file(dir / "out/lit.vert.spv"));
    CHECK(std::filesystem::is_regular_file(dir / "out/lit.frag.spv"));

    // The reflection of every stage, with the members of its blocks.
    r = test::run_process({KILN_CLI, "shader", "reflect", shader, "--json"}, env);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const auto reflected = nlohmann::json::parse(r.output);
    REQUIRE(reflected["stages"].size() == 2);
    CHECK(reflected["stages"][0]["stage"] == "vert");
    CHECK(reflected["stages"][1]["stage"] == "frag");
    r = test::run_process({KILN_CLI, "shader", "reflect", shader}, env);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("(vert) entry main") != std::string::npos);
    CHECK(r.output.find("(frag) entry main") != std::string::npos);
    CHECK(r.output.find("member offset=0 size=64 mat4 view_projection") != std::string::npos);
  }

  TEST_CASE("kiln shader compile takes -D NAME=VALUE as glslangValidator does - joined or apart") {
    test::TempDir dir("cli-defines");
    std::ofstream(dir / "tint.frag") << "#version 450\nlayout(location = 0) out vec4 color;\n#ifndef TINT\n"
                                        "#error TINT is not defined\n#endif\nvoid main() { color = vec4(TINT); }\n";
    const std::map<std::string, std::string> env = {{"KILN_CACHE_ROOT", (dir / "cache").string()}};
    const std::string shader = (dir / "tint.frag").string();
    auto joined = test::run_process({KILN_CLI, "shader", "compile", shader, "-DTINT=0.5"}, env);
    CHECK_MESSAGE(joined.exit_code == 0, joined.output);
    auto apart = test::run_process({KILN_CLI, "shader", "compile", shader, "-D", "TINT=0.25"}, env);
    CHECK_MESSAGE(apart.exit_code == 0, apart.output);
    auto without = test::run_process({KILN_CLI, "shader", "compile", shader}, env);
    CHECK(without.exit_code == 1);
    CHECK(without.output.find("TINT is not defined") != std::string::npos);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("kiln shader compile prints the compiler's warnings - on standard error - also on a disk hit") {
    test::TempDir dir("cli-warnings");
    std::ofstream(dir / "warn.frag") << "#version 450\n#extension GL_EXT_nonexistent : warn\n"
                                        "layout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    const std::string kiln = std::string(KILN_CLI) + " shader compile " + (dir / "warn.frag").string() +
                             " --json --cache-root " + (dir / "cache").string();
    const std::string warning = "warn.frag:2: warning: '#extension' : extension not supported: GL_EXT_nonexistent";
    for (const char* expected : {"compiled", "disk hit"}) {
      CAPTURE(expected);
      // Standard output stays JSON; the warning goes to standard error.
      auto r = test::run_process({"/bin/sh", "-c", kiln + " 2>" + (dir / "stderr.txt").string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      CHECK(nlohmann::json::parse(r.output)["result"] == expected);
      CHECK_MESSAGE(test::slurp(dir / "stderr.txt").find(warning) != std::string::npos,
                    test::slurp(dir / "stderr.txt"));
    }
  }

  TEST_CASE("kiln shader compile keys a shader by its place in the project - not by the working directory") {
    test::TempDir dir("cli-root");
    const auto project = test::copy_assets(dir);  // has materials/: the project root
    const std::string cache = " --json --cache-root " + (dir / "cache").string();
    auto run_in = [&](const std::filesystem::path& cwd, const std::string& shader) {
      auto r = test::run_process(
          {"/bin/sh", "-c",
           "cd " + cwd.string() + " && " + KILN_CLI + " shader compile " + shader + " --keywords FOG" + cache});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      return nlohmann::json::parse(r.output)["result"].get<std::string>();
    };
    CHECK(run_in(project, "shaders/lit") == "compiled");
    CHECK(run_in(project / "shaders", "lit") == "disk hit");
    CHECK(run_in(dir.path(), "project/shaders/lit") == "disk hit");
    CHECK(run_in("/", (project / "shaders/lit").string()) == "disk hit");
    // --root names the root: the same files under another root are another key.
    auto r = test::run_process({KILN_CLI, "shader", "compile", (project / "shaders/lit").string(), "--keywords", "FOG",
                                "--root", (project / "shaders/..").string(), "--json", "--cache-root",
                                (dir / "cache").string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(nlohmann::json::parse(r.output)["result"] == "disk hit");
    // Outside every project, a file's own directory is its root: includes need -I.
    std::filesystem::create_directories(dir.path() / "loose");
    std::filesystem::copy_file(project / "shaders/lit.frag", dir / "loose/lit.frag");
    r = test::run_process({KILN_CLI, "shader", "compile", (dir / "loose/lit.frag").string(), "--keywords", "FOG", "-I",
                           (project / "shaders").string(), "--json", "--cache-root", (dir / "cache").string()});
    CHECK_MESSAGE(r.exit_code == 0, r.output);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("kiln follows command-line conventions - --version - --help per command - usage errors name the flag") {
    auto version = test::run_process({KILN_CLI, "--version"});
    CHECK(version.exit_code == 0);
    CHECK(version.output.rfind("kiln ", 0) == 0);
    auto version_json = test::run_process({KILN_CLI, "version", "--json"});
    REQUIRE_MESSAGE(version_json.exit_code == 0, version_json.output);
    CHECK(nlohmann::json::parse(version_json.output).contains("version"));

    // Each command's help is its own: its options and an example, not the list of commands.
    auto cook_help = test::run_process({KILN_CLI, "cook", "--help"});
    CHECK(cook_help.exit_code == 0);
    CHECK(cook_help.output.find("--out") != std::string::npos);
    CHECK(cook_help.output.find("example: kiln cook") != std::string::npos);
    CHECK(cook_help.output.find("texture thumb") == std::string::npos);
    auto compile_help = test::run_process({KILN_CLI, "shader", "compile", "-h"});
    CHECK(compile_help.exit_code == 0);
    CHECK(compile_help.output.find("-D") != std::string::npos);
    CHECK(compile_help.output.find("example: kiln shader compile") != std::string::npos);
    auto help = test::run_process({KILN_CLI, "--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.output.find("--cache-root") != std::string::npos);  // the settings flags

    // Usage errors: exit 2, naming what was wrong.
    auto bogus = test::run_process({KILN_CLI, "cook", "assets", "--out", "o", "--bogus"});
    CHECK(bogus.exit_code == 2);
    CHECK(bogus.output.find("--bogus") != std::string::npos);
    auto json_where_none = test::run_process({KILN_CLI, "script", "disasm", "x.lua", "--json"});
    CHECK(json_where_none.exit_code == 2);
    CHECK(json_where_none.output.find("--json") != std::string::npos);
    auto budget = test::run_process({KILN_CLI, "script", "run", "x.lua", "--budget", "abc"});
    CHECK(budget.exit_code == 2);
    CHECK(budget.output.find("--budget: needs a whole number, got \"abc\"") != std::string::npos);
    auto missing = test::run_process({KILN_CLI, "shader", "compile"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.output.find("shader") != std::string::npos);
  }

  TEST_CASE("settings flags work before or after the command") {
    test::TempDir dir("cli-flags");
    for (const auto& argv :
         {std::vector<std::string>{KILN_CLI, "--cache-root", (dir / "c").string(), "config", "--json"},
          std::vector<std::string>{KILN_CLI, "config", "--json", "--cache-root", (dir / "c").string()}}) {
      auto r = test::run_process(argv);
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      const auto j = nlohmann::json::parse(r.output);
      CHECK(j["settings"]["cache.root"]["value"] == (dir / "c").string());
      CHECK(j["settings"]["cache.root"]["origin"] == "flag --cache-root");
    }
  }

  TEST_CASE("kiln-player has --help and --version - and refuses what it does not know with exit 2") {
    auto help = test::run_process({KILN_PLAYER, "--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.output.find("--quiet") != std::string::npos);
    CHECK(help.output.find("example: kiln-player") != std::string::npos);
    auto version = test::run_process({KILN_PLAYER, "--version"});
    CHECK(version.exit_code == 0);
    CHECK(version.output.rfind("kiln-player ", 0) == 0);
    auto bogus = test::run_process({KILN_PLAYER, "out", "--bogus"});
    CHECK(bogus.exit_code == 2);
    CHECK(bogus.output.find("--bogus") != std::string::npos);
    auto both = test::run_process({KILN_PLAYER, "out", "--json", "--quiet"});
    CHECK(both.exit_code == 2);
  }
}

TEST_SUITE("editor") {
  TEST_CASE("every command of the table runs somewhere - kiln itself or an entry point of the tools plugin") {
    const fs::path file = fs::path(KILN_CLI).parent_path() / cli::kToolsPluginName;
    auto plugin = Plugin::open(file, cli::kToolsPluginName, "tools plugin");
    REQUIRE_MESSAGE(plugin, plugin.error().message);
    auto build_id = plugin->entry(cli::kToolsBuildIdSymbol);
    REQUIRE(build_id);
    CHECK(std::string(reinterpret_cast<cli::ToolsBuildId>(*build_id)()) == KILN_TOOLS_BUILD_ID);
    std::set<std::string> groups;
    for (const cli::Command& c : cli::command_table()) {
      std::string words;
      for (const char* w : c.path) words += (words.empty() ? "" : " ") + std::string(w);
      CAPTURE(words);
      CHECK((c.run_in_kiln == nullptr) != (c.tools_entry == nullptr));  // exactly one runner
      if (c.tools_entry) CHECK_MESSAGE(plugin->entry(c.tools_entry), c.tools_entry);
      std::vector<std::string> path(c.path.begin(), c.path.end());
      CHECK(cli::find_command(path) == &c);
      if (c.path.size() > 1) groups.insert(c.path.front());
      // Each is reachable on the command line, with its own help and example.
      std::vector<std::string> argv = {KILN_CLI};
      argv.insert(argv.end(), path.begin(), path.end());
      argv.push_back("--help");
      const auto help = test::run_process(argv);
      CHECK(help.exit_code == 0);
      CHECK(help.output.find(std::string("example: ") + c.example) != std::string::npos);
    }
    // Every group word has its help line, and none is without commands.
    std::set<std::string> described;
    for (const cli::CommandGroup& g : cli::command_groups()) described.insert(g.name);
    CHECK(groups == described);
  }
}
