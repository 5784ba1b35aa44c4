// Which stages each backend writes: SPIRV-Cross 1.3.239 writes HLSL mesh shaders (shader model
// 6.5) but no HLSL amplification or ray-tracing shaders, and no MSL geometry, object, mesh or
// ray-tracing functions (its MSL writer would name such a function `unknown`). A stage it cannot
// write is an error naming the backend and the stage, never text no compiler takes.

#include <doctest/doctest.h>

#include <string>

#include "kiln/shadercache/backends.h"
#include "kiln/shadercache/glsl_compiler.h"
#include "modern_stage_shaders.h"

using namespace kiln;
using namespace kiln::shadercache;

namespace {

constexpr const char* kGeometry = R"(#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) out vec3 color;
void main() {
  for (int i = 0; i < 3; ++i) {
    color = vec3(i);
    gl_Position = vec4(float(i), 0.0, 0.0, 1.0);
    EmitVertex();
  }
  EndPrimitive();
}
)";

std::vector<std::uint32_t> spirv_of(const std::string& file, const std::string& source) {
  auto stage = stage_from_path(file);
  REQUIRE(stage);
  auto compiled = compile_glsl({.file = file, .source = source, .stage = *stage, .target = TargetEnv::kVulkan1_2});
  REQUIRE_MESSAGE(compiled, compiled.error().message);
  return compiled->spirv;
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("each backend writes the stages SPIRV-Cross has a writer for - and refuses the rest by name") {
    for (const test::StageSource& s : test::modern_stage_files()) {
      const std::string file = s.file;
      CAPTURE(file);
      const auto spirv = spirv_of(file, s.source);
      const auto stage = *stage_from_path(file);
      const bool mesh = stage == runtime::ShaderStage::kMesh, task = stage == runtime::ShaderStage::kTask;
      const bool fragment = stage == runtime::ShaderStage::kFragment;

      auto msl = cross_compile(spirv, Backend::kMsl);
      if (fragment) {
        REQUIRE_MESSAGE(msl, msl.error().message);
        CHECK(msl->find("fragment ") != std::string::npos);
      } else {
        REQUIRE_FALSE(msl);
        const std::string what = mesh ? "a mesh stage" : task ? "a task stage" : "a ray-tracing stage";
        CHECK_MESSAGE(msl.error().message.find("cannot translate it to msl: SPIRV-Cross") == 0, msl.error().message);
        CHECK_MESSAGE(msl.error().message.find("writes no msl for " + what) != std::string::npos, msl.error().message);
      }

      auto hlsl = cross_compile(spirv, Backend::kHlsl);
      if (fragment || mesh) {
        REQUIRE_MESSAGE(hlsl, hlsl.error().message);
        if (mesh) {
          CHECK(hlsl->find("[outputtopology(\"triangle\")]") != std::string::npos);
          CHECK(hlsl->find("out vertices ") != std::string::npos);
          CHECK(hlsl->find("out primitives ") != std::string::npos);
          CHECK(hlsl->find(".Load<float4>(") != std::string::npos);  // shader model 6.5's, not 5.1's Load4
        }
      } else {
        REQUIRE_FALSE(hlsl);
        const std::string what = task ? "a task stage" : "a ray-tracing stage";
        CHECK_MESSAGE(hlsl.error().message.find("writes no hlsl for " + what) != std::string::npos,
                      hlsl.error().message);
      }
    }
  }

  TEST_CASE("a geometry stage has no MSL - and still has GLSL") {
    const auto spirv = spirv_of("g.geom", kGeometry);
    auto msl = cross_compile(spirv, Backend::kMsl);
    REQUIRE_FALSE(msl);
    CHECK(msl.error().message.find(
              "writes no msl for a geometry stage (Metal has none): cook this shader for SPIR-V") != std::string::npos);
    auto glsl = cross_compile(spirv, Backend::kGlsl);
    REQUIRE_MESSAGE(glsl, glsl.error().message);
    CHECK(glsl->find("EmitVertex();") != std::string::npos);
  }
}
