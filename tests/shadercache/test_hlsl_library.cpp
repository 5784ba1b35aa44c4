// HLSL stage files in a ShaderLibrary: found by name beside GLSL ones, their includes resolved and
// tracked by the rule glslangValidator follows (the includer's directory, then the directories of
// the files that included it, then the include directories; `\` as a separator), hot reload
// included.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.h"
#include "kiln/runtime/shader_stage.h"
#include "kiln/shadercache/shader_library.h"
#include "temp_dir.h"
#include "test_files.h"

using namespace kiln;
using namespace kiln::shadercache;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::trunc) << text; }

std::string spirv_bytes(const CompiledStage& stage) {
  return std::string(reinterpret_cast<const char*>(stage.spirv.data()), stage.spirv.size() * 4);
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("a stage file's name gives its stage and language - and the shader it belongs to") {
    const auto hlsl = runtime::stage_source_from_path("shaders/lit.frag.hlsl");
    REQUIRE(hlsl);
    CHECK(hlsl->stage == runtime::ShaderStage::kFragment);
    CHECK(hlsl->language == runtime::SourceLanguage::kHlsl);
    const auto glsl = runtime::stage_source_from_path("shaders/trace.rgen");
    REQUIRE(glsl);
    CHECK(glsl->stage == runtime::ShaderStage::kRayGen);
    CHECK(glsl->language == runtime::SourceLanguage::kGlsl);
    CHECK_FALSE(runtime::stage_source_from_path("shaders/common.hlsli"));
    CHECK_FALSE(runtime::stage_source_from_path("shaders/lit.hlsl"));
    CHECK_FALSE(runtime::stage_source_from_path("shaders/frag.hlsl"));
    CHECK(runtime::shader_of_stage_file("shaders/lit.frag.hlsl") == "shaders/lit");
    CHECK(runtime::shader_of_stage_file("shaders/lit.vert") == "shaders/lit");
    CHECK(runtime::shader_of_stage_file("shaders/notes.txt") == "shaders/notes.txt");
  }

  TEST_CASE("an HLSL header finds its includer's neighbours as glslangValidator does - and every edit reloads") {
    test::TempDir dir("hlsl-includes");
    const fs::path root = dir / "proj";
    fs::create_directories(root / "shaders" / "inc");
    // inc/deep.hlsli includes near.hlsli, which is not beside it but beside the stage file.
    write_text(root / "shaders" / "s.frag.hlsl",
               "#include \"inc\\deep.hlsli\"\nfloat4 main() : SV_Target { return float4(DEEP, NEAR, 0, 1); }\n");
    write_text(root / "shaders" / "inc" / "deep.hlsli", "#include \"near.hlsli\"\nstatic const float DEEP = 0.25;\n");
    write_text(root / "shaders" / "near.hlsli", "static const float NEAR = 0.5;\n");
    ShaderLibrary library({.root = root});
    auto first = library.variant("shaders/s", "Main", {});
    REQUIRE_MESSAGE(first, first.error().message);
    REQUIRE((*first)->stages.size() == 1);
    CHECK((*first)->stages[0].stage == "frag");
    const fs::path oracle = dir / "oracle.spv";
    auto r = test::run_process({"/usr/bin/glslangValidator", "-D", "-V", "-S", "frag", "-e", "main",
                                (root / "shaders" / "s.frag.hlsl").string(), "-o", oracle.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(spirv_bytes((*first)->stages[0]) == test::slurp(oracle));

    // Both headers are the shader's, and so is a GLSL or HLSL stage file that does not exist yet.
    CHECK(library.file_changed("shaders/near.hlsli") == std::vector<std::string>{"shaders/s"});
    CHECK(library.file_changed("shaders/inc/deep.hlsli") == std::vector<std::string>{"shaders/s"});
    CHECK(library.file_changed("shaders/s.vert.hlsl") == std::vector<std::string>{"shaders/s"});
    CHECK(library.file_changed("shaders/s.vert") == std::vector<std::string>{"shaders/s"});
    CHECK(library.file_changed("shaders/other.hlsli").empty());

    // A near.hlsli beside deep.hlsli now wins: the includer's own directory is searched first.
    write_text(root / "shaders" / "inc" / "near.hlsli", "static const float NEAR = 0.75;\n");
    CHECK(library.file_changed("shaders/inc/near.hlsli") == std::vector<std::string>{"shaders/s"});
    auto second = library.variant("shaders/s", "Main", {});
    REQUIRE_MESSAGE(second, second.error().message);
    CHECK(spirv_bytes((*second)->stages[0]) != spirv_bytes((*first)->stages[0]));
    r = test::run_process({"/usr/bin/glslangValidator", "-D", "-V", "-S", "frag", "-e", "main",
                           (root / "shaders" / "s.frag.hlsl").string(), "-o", oracle.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(spirv_bytes((*second)->stages[0]) == test::slurp(oracle));
  }

  TEST_CASE("a GLSL header finds its includer's neighbours too - before the include directories") {
    test::TempDir dir("glsl-include-chain");
    const fs::path root = dir / "proj";
    fs::create_directories(root / "shaders" / "inc");
    fs::create_directories(root / "extra");
    write_text(root / "shaders" / "s.frag",
               "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"inc/deep.glsl\"\n"
               "layout(location = 0) out vec4 c;\nvoid main() { c = vec4(NEAR); }\n");
    write_text(root / "shaders" / "inc" / "deep.glsl", "#include \"near.glsl\"\n");
    write_text(root / "shaders" / "near.glsl", "const float NEAR = 0.5;\n");
    write_text(root / "extra" / "near.glsl", "const float NEAR = 0.125;\n");
    ShaderLibrary library({.root = root, .include_dirs = {"extra"}});
    auto v = library.variant("shaders/s", "Main", {});
    REQUIRE_MESSAGE(v, v.error().message);
    const fs::path oracle = dir / "oracle.spv";
    auto r = test::run_process({"/usr/bin/glslangValidator", "-V", "-I" + (root / "extra").string(),
                                (root / "shaders" / "s.frag").string(), "-o", oracle.string()});
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(spirv_bytes((*v)->stages[0]) == test::slurp(oracle));
  }
}
