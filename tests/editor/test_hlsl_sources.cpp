// HLSL stage files (`name.<stage>.hlsl`) through `kiln shader compile` and `kiln cook`: the SPIR-V is
// `glslangValidator -D -V -S <stage> -e <entry>`'s, mistakes are errors at file:line, the entry point
// is part of the cache key, and a material on an HLSL shader is checked, cooked and drawn on
// lavapipe exactly as its GLSL twin.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "hlsl_shaders.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/textures/image.h"
#include "lavapipe.h"
#include "temp_dir.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace kiln;

namespace {

// The HLSL twin of the sample project's unlit shader, beside it.
void add_hlsl_unlit(const fs::path& project) {
  fs::create_directories(project / "shaders" / "common");
  std::ofstream(project / "shaders" / "common" / "camera.hlsli") << test::kHlslCameraInclude;
  std::ofstream(project / "shaders" / "unlit_hlsl.vert.hlsl") << test::kHlslUnlitVert;
  std::ofstream(project / "shaders" / "unlit_hlsl.frag.hlsl") << test::kHlslUnlitFrag;
}

struct Compiled {
  int exit_code;
  std::string output;
  std::string spirv;
};

Compiled kiln_compile(const fs::path& file, const std::vector<std::string>& extra, const fs::path& cache) {
  const fs::path out = file.string() + ".kiln.spv";
  fs::remove(out);
  std::vector<std::string> argv = {KILN_CLI, "shader",     "compile",      file.string(),
                                   "-o",     out.string(), "--cache-root", cache.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto r = test::run_process(argv);
  return {r.exit_code, r.output, fs::exists(out) ? test::slurp(out) : ""};
}

}  // namespace

TEST_SUITE("editor") {
  TEST_CASE("HLSL stages compile as glslangValidator -D -V -S stage -e entry compiles them") {
    test::TempDir dir("hlsl-stages");
    const fs::path project = dir / "project";
    add_hlsl_unlit(project);
    std::ofstream(project / "shaders" / "blur.comp.hlsl") << test::kHlslBlurComp;
    const fs::path cache = dir / "cache";
    struct Case {
      const char* file;
      const char* stage;
      const char* entry;                    // what glslangValidator is told
      std::vector<std::string> kiln_flags;  // what picks the same entry and keywords in Kiln
      std::vector<std::string> defines;     // the keywords, as glslangValidator takes them
    };
    const Case cases[] = {
        // The entry point from `#pragma kiln entry VSMain`; the include written `common\camera.hlsli`.
        {"unlit_hlsl.vert.hlsl", "vert", "VSMain", {}, {}},
        {"unlit_hlsl.frag.hlsl", "frag", "main", {}, {}},
        {"unlit_hlsl.frag.hlsl",
         "frag",
         "main",
         {"--keywords", "FOG", "--pass", "Forward"},
         {"-DFOG=1", "-DKILN_PASS_FORWARD=1"}},
        {"blur.comp.hlsl", "comp", "CSMain", {"--entry", "CSMain", "--keywords", "WIDE"}, {"-DWIDE=1"}},
        {"blur.comp.hlsl", "comp", "Clear", {"--entry", "Clear"}, {}},
    };
    for (const Case& c : cases) {
      const fs::path file = project / "shaders" / c.file;
      CAPTURE(c.file);
      CAPTURE(c.entry);
      auto ours = kiln_compile(file, c.kiln_flags, cache);
      REQUIRE_MESSAGE(ours.exit_code == 0, ours.output);
      // glslangValidator reads the stage from -S; it is given a copy named as it expects nothing of.
      std::vector<std::string> oracle = {"/usr/bin/glslangValidator", "-D", "-V", "-S", c.stage, "-e", c.entry};
      oracle.insert(oracle.end(), c.defines.begin(), c.defines.end());
      const fs::path theirs = dir / "oracle.spv";
      oracle.insert(oracle.end(), {file.string(), "-o", theirs.string()});
      auto r = test::run_process(oracle);
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      CHECK(ours.spirv == test::slurp(theirs));
    }
    // Every backend takes an HLSL source; MSL names the entry point the shader chose.
    for (const char* backend : {"glsl", "essl", "hlsl", "msl"}) {
      CAPTURE(backend);
      const fs::path out = dir / (std::string("vert.") + backend);
      auto r =
          test::run_process({KILN_CLI, "shader", "compile", (project / "shaders" / "unlit_hlsl.vert.hlsl").string(),
                             "--backend", backend, "-o", out.string(), "--cache-root", cache.string()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.output);
      if (std::string(backend) == "msl") CHECK(test::slurp(out).find("vertex VSMain_out VSMain(") != std::string::npos);
    }
  }

  TEST_CASE("an HLSL stage's mistakes are errors at file:line - a missing entry point is not an empty stage") {
    test::TempDir dir("hlsl-errors");
    const fs::path shaders = dir / "project" / "shaders";
    fs::create_directories(shaders);
    const fs::path cache = dir / "cache";
    std::ofstream(shaders / "typo.frag.hlsl") << "float4 main() : SV_Target {\n  return colr;\n}\n";
    auto r = kiln_compile(shaders / "typo.frag.hlsl", {}, cache);
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find("typo.frag.hlsl:2: error: 'colr' : unknown variable") != std::string::npos, r.output);
    // glslang's closing line says where parsing stopped, in the same form.
    CHECK_MESSAGE(r.output.find("typo.frag.hlsl:2: error: HLSL parsing failed at column") != std::string::npos,
                  r.output);

    // glslangValidator writes a stage with an empty body when the entry point is not there.
    std::ofstream(shaders / "named.frag.hlsl") << "float4 PSMain() : SV_Target { return 1; }\n";
    r = kiln_compile(shaders / "named.frag.hlsl", {}, cache);
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(
        r.output.find("named.frag.hlsl: error: no function main to start the frag stage at") != std::string::npos,
        r.output);
    CHECK(r.spirv.empty());
    r = kiln_compile(shaders / "named.frag.hlsl", {"--entry", "PSMain"}, cache);
    CHECK_MESSAGE(r.exit_code == 0, r.output);

    // The entry point is HLSL's to choose.
    std::ofstream(shaders / "plain.frag") << "#version 450\n#pragma kiln entry PSMain\nvoid main() {}\n";
    r = kiln_compile(shaders / "plain.frag", {}, cache);
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find("plain.frag: error: '#pragma kiln entry' is for HLSL stages") != std::string::npos,
                  r.output);
    std::ofstream(shaders / "plain.frag") << "#version 450\nvoid main() {}\n";
    r = kiln_compile(shaders / "plain.frag", {"--entry", "PSMain"}, cache);
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.output.find("an entry point (--entry PSMain) is for HLSL stages") != std::string::npos, r.output);

    // One file per stage: a GLSL and an HLSL fragment stage of one shader are refused by name.
    std::ofstream(shaders / "both.vert") << "#version 450\nvoid main() { gl_Position = vec4(0); }\n";
    std::ofstream(shaders / "both.frag") << "#version 450\nvoid main() {}\n";
    std::ofstream(shaders / "both.frag.hlsl") << "float4 main() : SV_Target { return 1; }\n";
    auto both = test::run_process({KILN_CLI, "shader", "compile", (shaders / "both").string(), "--root",
                                   (dir / "project").string(), "--cache-root", cache.string()});
    CHECK(both.exit_code == 1);
    CHECK_MESSAGE(both.output.find("shader shaders/both: two frag stages, shaders/both.frag and "
                                   "shaders/both.frag.hlsl (keep one: GLSL or HLSL)") != std::string::npos,
                  both.output);
  }

  TEST_CASE("the entry point is part of an HLSL variant's cache key") {
    test::TempDir dir("hlsl-entry-key");
    const fs::path file = dir / "blur.comp.hlsl";
    std::ofstream(file) << test::kHlslBlurComp;
    const fs::path cache = dir / "cache";
    auto main_one = kiln_compile(file, {"--entry", "CSMain"}, cache);
    REQUIRE_MESSAGE(main_one.exit_code == 0, main_one.output);
    // Same text, same keywords, another entry point: a compile of its own, never the first's blob.
    auto clear = kiln_compile(file, {"--entry", "Clear"}, cache);
    REQUIRE_MESSAGE(clear.exit_code == 0, clear.output);
    CHECK_MESSAGE(clear.output.rfind("compiled ", 0) == 0, clear.output);
    CHECK(clear.spirv != main_one.spirv);
    CHECK(clear.spirv.find("Clear") != std::string::npos);
    auto again = kiln_compile(file, {"--entry", "CSMain"}, cache);
    CHECK_MESSAGE(again.output.rfind("disk hit ", 0) == 0, again.output);
    CHECK(again.spirv == main_one.spirv);
  }

  TEST_CASE("a material on an HLSL shader is checked against its cbuffers and draws as its GLSL twin on lavapipe") {
    if (test::lavapipe_icd().empty()) return;
    test::TempDir dir("hlsl-material");
    const fs::path project = test::copy_assets(dir);
    add_hlsl_unlit(project);
    const fs::path cache = dir / "cache";
    auto cook = [&](const std::string& out) {
      return test::run_process(
          {KILN_CLI, "cook", project.string(), "--out", (dir / out).string(), "--cache-root", cache.string()});
    };
    auto glsl = cook("glsl");
    REQUIRE_MESSAGE(glsl.exit_code == 0, glsl.output);
    // The sky, on the HLSL twin of its shader.
    const std::string sky = test::slurp(project / "materials" / "sky.json");
    auto with_shader = [&](const std::string& text) {
      std::string out = text;
      out.replace(out.find("shaders/unlit"), std::string("shaders/unlit").size(), "shaders/unlit_hlsl");
      return out;
    };
    std::ofstream(project / "materials" / "sky.json") << with_shader(sky);
    auto hlsl = cook("hlsl");
    REQUIRE_MESSAGE(hlsl.exit_code == 0, hlsl.output);

    auto set = runtime::CookedSet::open(dir / "hlsl");
    REQUIRE(set);
    auto record = (*set)->material("materials/sky.json");
    REQUIRE_MESSAGE(record, record.error().message);
    REQUIRE(record->passes.size() == 1);
    CHECK(record->passes[0].variant == "shaders/unlit_hlsl|Forward|FOG");
    // The Texture2D is the slot; its SamplerState sampler_main_texture samples with the texture's sampler.
    bool image = false, sampler = false;
    for (const auto& t : record->passes[0].textures) {
      CHECK(t.slot == "main_texture");
      image = image || (t.set == 1 && t.binding == 0);
      sampler = sampler || (t.set == 1 && t.binding == 2);
    }
    CHECK(image);
    CHECK(sampler);

    const auto env = test::lavapipe_env();
    for (const char* which : {"glsl", "hlsl"}) {
      auto played = test::run_process({KILN_PLAYER, (dir / which).string(), "--frames", "1", "--render",
                                       (dir / (std::string(which) + "-frame")).string(), "--require-gpu",
                                       "--cache-root", (dir / "player-cache").string()},
                                      env);
      REQUIRE_MESSAGE(played.exit_code == 0, played.output);
    }
    auto glsl_frame = textures::read_image(dir / "glsl-frame" / "frame.png");
    auto hlsl_frame = textures::read_image(dir / "hlsl-frame" / "frame.png");
    REQUIRE(glsl_frame);
    REQUIRE(hlsl_frame);
    REQUIRE(glsl_frame->pixels.size() == hlsl_frame->pixels.size());
    int worst = 0;
    for (std::size_t i = 0; i < glsl_frame->pixels.size(); ++i)
      worst = std::max(worst, std::abs(int(glsl_frame->pixels[i]) - int(hlsl_frame->pixels[i])));
    CHECK(worst <= 1);

    // Parameters and slots are checked against the cbuffer members and the Texture2D, by name.
    std::ofstream(project / "materials" / "sky.json")
        << R"({"shader": "shaders/unlit_hlsl", "keywords": ["FOG"], "params": {"colr": [1, 1, 1, 1]},
              "textures": {"sampler_main_texture": "textures/sky.png"}})";
    auto wrong = cook("wrong");
    CHECK(wrong.exit_code == 1);
    CHECK_MESSAGE(wrong.output.find("sky.json: /params/colr: shader shaders/unlit_hlsl has no parameter 'colr'") !=
                      std::string::npos,
                  wrong.output);
    CHECK_MESSAGE(wrong.output.find("sky.json: /textures/sampler_main_texture: shader shaders/unlit_hlsl has no "
                                    "texture slot 'sampler_main_texture'") != std::string::npos,
                  wrong.output);
  }
}
