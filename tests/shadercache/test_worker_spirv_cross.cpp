// SPIRV-Cross runs in the compile workers beside glslang: reflection and translation through a
// kiln-shader-worker give what they give in process, and a worker that dies in SPIRV-Cross costs
// only what SPIRV-Cross was doing (a stand-in worker dies where a crash in it would).

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "kiln/shadercache/backends.h"
#include "kiln/shadercache/isolated_compiler.h"
#include "kiln/shadercache/reflection.h"

using namespace kiln;
using namespace kiln::shadercache;
namespace fs = std::filesystem;

namespace {

constexpr const char* kLitFrag = R"(#version 450
layout(set = 0, binding = 0) uniform Light { vec4 direction; vec4 color; } light;
layout(set = 1, binding = 0) uniform sampler2D albedo;
layout(push_constant) uniform Push { float exposure; } push;
layout(location = 0) in vec3 normal;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  float lit = max(dot(normalize(normal), light.direction.xyz), 0.0);
  color = texture(albedo, uv) * light.color * lit * push.exposure;
}
)";

GlslInput lit_shader() { return {.file = "shaders/lit.frag", .source = kLitFrag, .stage = Stage::kFragment}; }

CompileIsolation real_workers() {
  return {.mode = CompileIsolation::Mode::kProcess, .worker = fs::path(KILN_CLI).parent_path() / "kiln-shader-worker"};
}

CompileIsolation dying_workers() {
  return {.mode = CompileIsolation::Mode::kProcess, .worker = KILN_WORKER_DIES_REFLECTING};
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("reflection and every backend's source from a compile worker equal SPIRV-Cross's in process") {
    IsolatedCompiler compiler(real_workers());
    auto stage = compiler.compile_and_reflect(lit_shader());
    REQUIRE_MESSAGE(stage, stage.error().message);
    REQUIRE_MESSAGE(stage->reflection, stage->reflection_error);
    const auto in_process = reflect_spirv(stage->glsl.spirv);
    REQUIRE(in_process);
    CHECK(*stage->reflection == *in_process);
    CHECK(stage->reflection->bindings.size() == 2);
    for (Backend backend : {Backend::kGlsl, Backend::kEssl, Backend::kHlsl, Backend::kMsl}) {
      CAPTURE(runtime::backend_name(backend));
      const BindingMap map = map_bindings({*in_process}, backend);
      auto ours = compiler.translate({.file = "shaders/lit.frag",
                                      .stage = Stage::kFragment,
                                      .spirv = stage->glsl.spirv,
                                      .backend = backend,
                                      .bindings = map});
      REQUIRE_MESSAGE(ours, ours.error().message);
      auto theirs = cross_compile(stage->glsl.spirv, backend, map);
      REQUIRE(theirs);
      CHECK(*ours == *theirs);
      CHECK_FALSE(ours->empty());
    }
    // One worker did all of it, one request after another.
    CHECK(compiler.stats().workers_started == 1);
    CHECK(compiler.stats().workers_lost == 0);
  }

  TEST_CASE("a translation SPIRV-Cross refuses in a worker is an error naming the file and stage") {
    // A device-address pointer has no GLSL without Vulkan semantics.
    constexpr const char* kPointerFrag = R"(#version 460
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430) buffer Values { vec4 v; };
layout(set = 0, binding = 0) uniform Root { Values values; } root;
layout(location = 0) out vec4 color;
void main() { color = root.values.v; }
)";
    IsolatedCompiler compiler(real_workers());
    auto stage =
        compiler.compile_and_reflect({.file = "shaders/ptr.frag", .source = kPointerFrag, .stage = Stage::kFragment});
    REQUIRE_MESSAGE(stage, stage.error().message);
    REQUIRE_MESSAGE(stage->reflection, stage->reflection_error);
    auto glsl = compiler.translate({.file = "shaders/ptr.frag",
                                    .stage = Stage::kFragment,
                                    .spirv = stage->glsl.spirv,
                                    .backend = Backend::kGlsl,
                                    .bindings = map_bindings({*stage->reflection}, Backend::kGlsl)});
    REQUIRE_FALSE(glsl);
    CHECK_MESSAGE(glsl.error().message.rfind("shaders/ptr.frag: error: frag stage: SPIRV-Cross", 0) == 0,
                  glsl.error().message);
    // A refusal is an answer: the worker lives on.
    CHECK(compiler.stats().workers_lost == 0);
  }

  TEST_CASE("a worker that dies reflecting keeps the compile - the stage comes back unreflected saying why") {
    IsolatedCompiler compiler(dying_workers());
    auto stage = compiler.compile_and_reflect(lit_shader());
    REQUIRE_MESSAGE(stage, stage.error().message);
    const auto expected = compile_glsl(lit_shader());
    REQUIRE(expected);
    CHECK(stage->glsl.spirv == expected->spirv);
    CHECK_FALSE(stage->reflection);
    CHECK_MESSAGE(stage->reflection_error == "SPIRV-Cross crashed (SIGSEGV) reading it", stage->reflection_error);
    CHECK(compiler.stats().workers_lost == 1);
    // The next request starts a worker of its own.
    CHECK(compiler.compile(lit_shader()));
    CHECK(compiler.stats().workers_started == 2);
  }

  TEST_CASE("a worker that dies translating fails that stage naming the file - the stage and the backend") {
    IsolatedCompiler compiler(dying_workers());
    const auto spirv = compile_glsl(lit_shader());
    REQUIRE(spirv);
    auto msl = compiler.translate(
        {.file = "shaders/lit.frag", .stage = Stage::kFragment, .spirv = spirv->spirv, .backend = Backend::kMsl});
    REQUIRE_FALSE(msl);
    CHECK(msl.error().message ==
          "shaders/lit.frag: error: frag stage: SPIRV-Cross crashed (SIGSEGV) translating it to msl");
    CHECK(compiler.stats().workers_lost == 1);
  }
}
