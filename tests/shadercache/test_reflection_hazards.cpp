// Valid shaders that used to take SPIRV-Cross (and the process with it) down, or stop it with a
// message of its own: structs that reach themselves through device addresses (`buffer_reference`
// linked lists) and modules using extensions this SPIRV-Cross does not know.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../../engine/shadercache/src/spirv_cross_input.h"
#include "hazard_shaders.h"
#include "kiln/shadercache/backends.h"
#include "kiln/shadercache/glsl_compiler.h"
#include "kiln/shadercache/reflection.h"

using namespace kiln;
using namespace kiln::shadercache;

namespace {

std::vector<std::uint32_t> spirv_of(const char* source, Stage stage) {
  auto compiled = compile_glsl({.file = "hazard", .source = source, .stage = stage, .target = TargetEnv::kVulkan1_2});
  REQUIRE_MESSAGE(compiled, compiled.error().message);
  return compiled->spirv;
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("a struct reaching itself through device addresses is reflected - the pointers as 8-byte members") {
    const auto spirv = spirv_of(test::kLinkedListFrag, Stage::kFragment);
    const CrossInput input = spirv_cross_input(spirv);
    // Only the structs on or leading to the cycle lose their names to SPIRV-Cross's parser.
    std::vector<std::string> held;
    for (const auto& [id, name] : input.held_names) held.push_back(name);
    std::sort(held.begin(), held.end());
    CHECK(held == std::vector<std::string>{"Item", "Item", "Node", "Root"});
    CHECK(input.words.size() < spirv.size());

    auto reflection = reflect_spirv(spirv);
    REQUIRE_MESSAGE(reflection, reflection.error().message);
    REQUIRE(reflection->bindings.size() == 1);
    const auto& root = reflection->bindings[0];
    CHECK(root.name == "Root");
    CHECK(root.block_size == 48);
    REQUIRE(root.members.size() == 2);
    CHECK(root.members[0].name == "head");
    CHECK(root.members[0].type == "pointer");
    CHECK(root.members[0].offset == 0);
    CHECK(root.members[0].size == 8);
    CHECK(root.members[1].name == "first");
    CHECK(root.members[1].offset == 16);

    // MSL has device pointers and keeps the names; GLSL without Vulkan semantics and HLSL have none
    // and say so.
    auto msl = cross_compile(spirv, Backend::kMsl);
    REQUIRE_MESSAGE(msl, msl.error().message);
    CHECK(msl->find("device Node* next;") != std::string::npos);
    CHECK(msl->find("struct Root") != std::string::npos);
    auto glsl = cross_compile(spirv, Backend::kGlsl);
    REQUIRE_FALSE(glsl);
    CHECK(glsl.error().message.starts_with("SPIRV-Cross cannot translate it to glsl: "));
    auto hlsl = cross_compile(spirv, Backend::kHlsl);
    REQUIRE_FALSE(hlsl);
    CHECK_MESSAGE(hlsl.error().message.starts_with("SPIRV-Cross cannot translate it to hlsl: "), hlsl.error().message);
  }

  TEST_CASE("a module without type cycles reaches SPIRV-Cross as it is") {
    const auto spirv = spirv_of(
        "#version 450\nlayout(set = 0, binding = 0) uniform U { vec4 tint; } u;\n"
        "layout(location = 0) out vec4 c;\nvoid main() { c = u.tint; }\n",
        Stage::kFragment);
    const CrossInput input = spirv_cross_input(spirv);
    CHECK(input.words == spirv);
    CHECK(input.held_names.empty());
    // Nor is anything held back from a stream that is not SPIR-V.
    const std::vector<std::uint32_t> garbage = {0x07230203, 0x10000, 0, 10, 0, 0xffff0001};
    CHECK(spirv_cross_input(garbage).words == garbage);
  }

  TEST_CASE("an extension SPIRV-Cross does not know is named in its refusal") {
    const auto spirv = spirv_of(test::kCooperativeMatrixComp, Stage::kCompute);
    auto reflection = reflect_spirv(spirv);
    REQUIRE_FALSE(reflection);
    CHECK_MESSAGE(reflection.error().message.find(" cannot reflect it: ") != std::string::npos,
                  reflection.error().message);
    CHECK(reflection.error().message.find("SPV_NV_cooperative_matrix") != std::string::npos);
  }
}
