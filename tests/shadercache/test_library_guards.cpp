// What the shader library refuses before compiling: an include that leads out of the project and
// its include directories, and a define that would turn a keyword on in every variant.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kiln/core/project_paths.h"
#include "kiln/shadercache/glsl_compiler.h"
#include "kiln/shadercache/shader_library.h"
#include "temp_dir.h"

using namespace kiln;
using namespace kiln::shadercache;
namespace fs = std::filesystem;

TEST_SUITE("shadercache") {
  TEST_CASE("an include leading out of the include roots is an error at its line - by .. or by a link") {
    test::TempDir dir("guards");
    fs::create_directories(dir / "proj" / "shaders");
    std::ofstream(dir / "outside.glsl") << "const float kOutside = 1.0;\n";
    fs::create_symlink(dir / "outside.glsl", dir / "proj" / "shaders" / "linked.glsl");
    std::ofstream(dir / "proj" / "shaders" / "inside.glsl") << "const float kInside = 1.0;\n";
    for (const std::string include : {"../../outside.glsl", "linked.glsl"}) {
      CAPTURE(include);
      GlslInput in{.file = dir / "proj" / "shaders" / "x.frag",
                   .source = "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"" + include +
                             "\"\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n",
                   .stage = Stage::kFragment,
                   .include_roots = canonical_roots({dir / "proj"})};
      auto refused = compile_glsl(in);
      REQUIRE_FALSE(refused);
      CHECK_MESSAGE(refused.error().message.find("x.frag:3:") != std::string::npos, refused.error().message);
      CHECK(refused.error().message.find("leads outside the project and its include directories") != std::string::npos);
      // Without roots (a single file compiled on its own) the same include is read.
      in.include_roots.clear();
      auto anywhere = compile_glsl(in);
      CHECK_MESSAGE(anywhere, anywhere.error().message);
    }
    GlslInput inside{.file = dir / "proj" / "shaders" / "y.frag",
                     .source =
                         "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                         "#include \"inside.glsl\"\nlayout(location = 0) out vec4 c;\n"
                         "void main() { c = vec4(kInside); }\n",
                     .stage = Stage::kFragment,
                     .include_roots = canonical_roots({dir / "proj"})};
    auto compiled = compile_glsl(inside);
    CHECK_MESSAGE(compiled, compiled.error().message);
  }

  TEST_CASE("a define naming one of the shader's keywords is refused - keywords are chosen per variant") {
    test::TempDir dir("guards");
    fs::create_directories(dir / "shaders");
    std::ofstream(dir / "shaders" / "s.frag") << "#version 450\n#pragma kiln keywords FOG\n#pragma kiln passes Main\n"
                                                 "layout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    ShaderLibrary fog_for_all({.root = dir.path(), .defines = {"FOG=1"}});
    auto refused = fog_for_all.variant("shaders/s", "Main", {});
    REQUIRE_FALSE(refused);
    CHECK_MESSAGE(refused.error().message.find("shader shaders/s: the define FOG (-D, cook.defines) names a keyword") !=
                      std::string::npos,
                  refused.error().message);
    ShaderLibrary other({.root = dir.path(), .defines = {"QUALITY=2"}});
    auto built = other.variant("shaders/s", "Main", {"FOG"});
    CHECK_MESSAGE(built, built.error().message);
  }
}
