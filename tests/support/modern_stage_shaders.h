#pragma once
// Shaders of the mesh and ray-tracing stages: a task-mesh-fragment pipeline (a task payload,
// per-primitive outputs) and a ray-tracing set (an acceleration structure, a ray payload, hit
// attributes, callable data and a shader record buffer). They need SPIR-V 1.4: vulkan1.2 or later.

#include <string>
#include <vector>

namespace kiln::test {

struct StageSource {
  const char* file;  // its extension is its stage
  const char* source;
};

inline constexpr const char* kMeshTask = R"(#version 460
#extension GL_EXT_mesh_shader : require
layout(local_size_x = 32) in;
struct Payload { uint meshlets[32]; };
taskPayloadSharedEXT Payload payload;
layout(set = 0, binding = 0) readonly buffer Visible { uint visible[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  payload.meshlets[i] = visible[gl_WorkGroupID.x * 32 + i];
  EmitMeshTasksEXT(32, 1, 1);
}
)";

inline constexpr const char* kMeshMesh = R"(#version 460
#extension GL_EXT_mesh_shader : require
layout(local_size_x = 32) in;
layout(triangles, max_vertices = 64, max_primitives = 124) out;
struct Payload { uint meshlets[32]; };
taskPayloadSharedEXT Payload payload;
layout(set = 0, binding = 1) uniform Camera { mat4 view_projection; vec4 tint; } camera;
layout(set = 0, binding = 2) readonly buffer Positions { vec4 positions[]; };
layout(location = 0) out vec3 color[];
layout(location = 1) perprimitiveEXT out flat uint meshlet_id[];
void main() {
  uint meshlet = payload.meshlets[gl_WorkGroupID.x];
  SetMeshOutputsEXT(64, 124);
  uint v = gl_LocalInvocationIndex;
  gl_MeshVerticesEXT[v].gl_Position = camera.view_projection * positions[meshlet * 64 + v];
  color[v] = camera.tint.rgb * float(v) / 64.0;
  gl_PrimitiveTriangleIndicesEXT[v] = uvec3(v, (v + 1) % 64, (v + 2) % 64);
  meshlet_id[v] = meshlet;
}
)";

inline constexpr const char* kMeshFrag = R"(#version 460
#extension GL_EXT_mesh_shader : require
layout(location = 0) in vec3 color;
layout(location = 1) perprimitiveEXT flat in uint meshlet_id;
layout(location = 0) out vec4 out_color;
void main() { out_color = vec4(color * float(meshlet_id & 7u) / 7.0, 1.0); }
)";

inline constexpr const char* kRayGen = R"(#version 460
#extension GL_EXT_ray_tracing : require
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D image;
layout(location = 0) rayPayloadEXT vec3 radiance;
void main() {
  vec2 uv = (vec2(gl_LaunchIDEXT.xy) + 0.5) / vec2(gl_LaunchSizeEXT.xy);
  traceRayEXT(scene, gl_RayFlagsOpaqueEXT, 0xff, 0, 0, 0, vec3(uv, -1.0), 0.001, vec3(0, 0, 1), 100.0, 0);
  imageStore(image, ivec2(gl_LaunchIDEXT.xy), vec4(radiance, 1.0));
}
)";

inline constexpr const char* kRayMiss = R"(#version 460
#extension GL_EXT_ray_tracing : require
layout(location = 0) rayPayloadInEXT vec3 radiance;
layout(shaderRecordEXT, std430) buffer Sky { vec4 sky_color; };
void main() { radiance = sky_color.rgb; }
)";

inline constexpr const char* kRayClosestHit = R"(#version 460
#extension GL_EXT_ray_tracing : require
layout(location = 0) rayPayloadInEXT vec3 radiance;
hitAttributeEXT vec2 barycentrics;
layout(location = 1) callableDataEXT vec4 shaded;
void main() {
  shaded = vec4(1.0 - barycentrics.x - barycentrics.y, barycentrics, 1.0);
  executeCallableEXT(0, 1);
  radiance = shaded.rgb;
}
)";

inline constexpr const char* kRayAnyHit = R"(#version 460
#extension GL_EXT_ray_tracing : require
hitAttributeEXT vec2 barycentrics;
void main() { if (barycentrics.x > 0.9) ignoreIntersectionEXT; }
)";

inline constexpr const char* kRayIntersection = R"(#version 460
#extension GL_EXT_ray_tracing : require
hitAttributeEXT vec2 barycentrics;
void main() {
  barycentrics = vec2(0.5);
  reportIntersectionEXT(gl_RayTminEXT + 1.0, 0u);
}
)";

inline constexpr const char* kRayCallable = R"(#version 460
#extension GL_EXT_ray_tracing : require
layout(location = 1) callableDataInEXT vec4 shaded;
void main() { shaded *= 0.5; }
)";

// A hit group of its own (shaders/glass: this and kRayAnyHit), with material parameters.
inline constexpr const char* kGlassClosestHit = R"(#version 460
#extension GL_EXT_ray_tracing : require
layout(location = 0) rayPayloadInEXT vec3 radiance;
hitAttributeEXT vec2 barycentrics;
layout(set = 1, binding = 0) uniform Glass { vec4 tint; float ior; } glass;
void main() { radiance = glass.tint.rgb * glass.ior * (1.0 - barycentrics.x); }
)";

// shaders/meshlets: task, mesh and fragment stages; shaders/trace: one of each ray-tracing stage.
inline const std::vector<StageSource>& modern_stage_files() {
  static const std::vector<StageSource> files = {
      {"meshlets.task", kMeshTask}, {"meshlets.mesh", kMeshMesh},     {"meshlets.frag", kMeshFrag},
      {"trace.rgen", kRayGen},      {"trace.rmiss", kRayMiss},        {"trace.rchit", kRayClosestHit},
      {"trace.rahit", kRayAnyHit},  {"trace.rint", kRayIntersection}, {"trace.rcall", kRayCallable},
  };
  return files;
}

}  // namespace kiln::test
