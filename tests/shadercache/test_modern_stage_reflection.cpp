// What mesh, task and ray-tracing stages add to a stage's interface, read back from their SPIR-V:
// a task payload, a mesh stage's output limits and per-primitive outputs, ray payloads, hit
// attributes, callable data and the shader record; stored and read back whole, and accepted by the
// player's check of reflection against SPIR-V.

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "kiln/runtime/reflection.h"
#include "kiln/shadercache/glsl_compiler.h"
#include "kiln/shadercache/reflection.h"
#include "modern_stage_shaders.h"

using namespace kiln;
using namespace kiln::shadercache;
using runtime::RayVariableKind;

namespace {

std::map<std::string, runtime::StageReflection> reflect_all() {
  std::map<std::string, runtime::StageReflection> out;
  for (const test::StageSource& stage_source : test::modern_stage_files()) {
    const std::string file = stage_source.file;
    const std::string source = stage_source.source;
    const auto stage = stage_from_path(file);
    REQUIRE(stage);
    auto spirv = compile_glsl({.file = file, .source = source, .stage = *stage, .target = TargetEnv::kVulkan1_2});
    REQUIRE_MESSAGE(spirv, spirv.error().message);
    auto reflection = reflect_spirv(spirv->spirv);
    REQUIRE_MESSAGE(reflection, reflection.error().message);
    CHECK_MESSAGE(runtime::check_reflection(*reflection, spirv->spirv), file);
    auto stored = runtime::decode_reflection(runtime::encode_reflection(*reflection), file);
    REQUIRE_MESSAGE(stored, stored.error().message);
    CHECK_MESSAGE(*stored == *reflection, file);
    out.emplace(file, std::move(*reflection));
  }
  return out;
}

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("task and mesh stages reflect their payload - output limits and per-primitive outputs") {
    const auto r = reflect_all();
    const auto& task = r.at("meshlets.task");
    CHECK(task.local_size == std::array<std::uint32_t, 3>{32, 1, 1});
    REQUIRE(task.task_payload);
    CHECK(task.task_payload->name == "payload");
    CHECK(task.task_payload->type == "Payload");
    CHECK(task.task_payload->size == 32 * 4);
    REQUIRE(task.task_payload->members.size() == 1);
    CHECK(task.task_payload->members[0].name == "meshlets");
    CHECK(task.task_payload->members[0].count == 32);
    REQUIRE(task.bindings.size() == 1);
    CHECK(task.bindings[0].kind == runtime::DescriptorKind::kStorageBuffer);

    const auto& mesh = r.at("meshlets.mesh");
    CHECK(mesh.local_size == std::array<std::uint32_t, 3>{32, 1, 1});
    CHECK(mesh.mesh_output == runtime::MeshOutput{64, 124, "triangles"});
    REQUIRE(mesh.task_payload);  // what it reads is what the task stage wrote
    CHECK(*mesh.task_payload == *task.task_payload);
    REQUIRE(mesh.outputs.size() == 2);
    CHECK(mesh.outputs[0].name == "color");
    CHECK_FALSE(mesh.outputs[0].per_primitive);
    CHECK(mesh.outputs[1].name == "meshlet_id");
    CHECK(mesh.outputs[1].per_primitive);
    CHECK(mesh.bindings.size() == 2);

    const auto& frag = r.at("meshlets.frag");
    REQUIRE(frag.inputs.size() == 2);
    CHECK_FALSE(frag.inputs[0].per_primitive);
    CHECK(frag.inputs[1].per_primitive);
    CHECK_FALSE(frag.mesh_output);
    CHECK_FALSE(frag.local_size);
  }

  TEST_CASE("ray-tracing stages reflect their payloads - hit attributes - callable data and shader record") {
    const auto r = reflect_all();
    using V = runtime::RayVariable;
    const auto& gen = r.at("trace.rgen");
    REQUIRE(gen.bindings.size() == 2);
    CHECK(gen.bindings[0].kind == runtime::DescriptorKind::kAccelerationStructure);
    CHECK(gen.bindings[0].name == "scene");
    CHECK(gen.bindings[1].kind == runtime::DescriptorKind::kStorageImage);
    CHECK(gen.ray_variables == std::vector<V>{{RayVariableKind::kRayPayload, "radiance", "vec3", 12}});

    const auto& miss = r.at("trace.rmiss");
    CHECK(miss.ray_variables == std::vector<V>{{RayVariableKind::kIncomingRayPayload, "radiance", "vec3", 12}});
    REQUIRE(miss.shader_record);
    CHECK(miss.shader_record->type == "Sky");
    CHECK(miss.shader_record->size == 16);
    REQUIRE(miss.shader_record->members.size() == 1);
    CHECK(miss.shader_record->members[0].name == "sky_color");
    CHECK(miss.bindings.empty());  // a record is not a descriptor

    CHECK(r.at("trace.rchit").ray_variables ==
          std::vector<V>{{RayVariableKind::kIncomingRayPayload, "radiance", "vec3", 12},
                         {RayVariableKind::kHitAttribute, "barycentrics", "vec2", 8},
                         {RayVariableKind::kCallableData, "shaded", "vec4", 16}});
    CHECK(r.at("trace.rahit").ray_variables ==
          std::vector<V>{{RayVariableKind::kHitAttribute, "barycentrics", "vec2", 8}});
    CHECK(r.at("trace.rint").ray_variables ==
          std::vector<V>{{RayVariableKind::kHitAttribute, "barycentrics", "vec2", 8}});
    CHECK(r.at("trace.rcall").ray_variables ==
          std::vector<V>{{RayVariableKind::kIncomingCallableData, "shaded", "vec4", 16}});
  }

  TEST_CASE("a stored ray variable of an unknown kind or a mesh output of no primitive is refused at its pointer") {
    runtime::StageReflection r;
    r.ray_variables.push_back({RayVariableKind::kRayPayload, "p", "vec3", 12});
    r.mesh_output = runtime::MeshOutput{3, 1, "triangles"};
    std::string text = runtime::encode_reflection(r);
    CHECK(runtime::decode_reflection(text, "r.json"));
    std::string kind = text;
    kind.replace(kind.find("\"ray_payload\""), 13, "\"ray_paylod\"");
    auto refused = runtime::decode_reflection(kind, "r.json");
    REQUIRE_FALSE(refused);
    CHECK_MESSAGE(refused.error().message.find("/ray_variables/0/kind") != std::string::npos, refused.error().message);
    std::string primitive = text;
    primitive.replace(primitive.find("\"triangles\""), 11, "\"quads\"");
    refused = runtime::decode_reflection(primitive, "r.json");
    REQUIRE_FALSE(refused);
    CHECK_MESSAGE(refused.error().message.find("/mesh_output/primitive") != std::string::npos, refused.error().message);
  }
}
