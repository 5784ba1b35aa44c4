#version 450
#extension GL_GOOGLE_include_directive : require
#pragma kiln keywords FOG SKIN NORMALMAP ALPHA_TEST
#pragma kiln passes Forward Shadow Depth

#include "common/camera.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
#ifdef NORMALMAP
layout(location = 3) in vec4 in_tangent;
#endif
#ifdef SKIN
layout(location = 4) in uvec4 in_joints;
layout(location = 5) in vec4 in_weights;
layout(set = 1, binding = 0) readonly buffer Skin { mat4 joints[]; } skin;
#endif

layout(push_constant) uniform Object { mat4 model; } object;

layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec2 out_uv;
#ifdef NORMALMAP
layout(location = 3) out vec4 out_tangent;
#endif

void main() {
  mat4 model = object.model;
#ifdef SKIN
  model = model * (skin.joints[in_joints.x] * in_weights.x + skin.joints[in_joints.y] * in_weights.y +
                   skin.joints[in_joints.z] * in_weights.z + skin.joints[in_joints.w] * in_weights.w);
#endif
  vec4 world = model * vec4(in_position, 1.0);
  out_world_position = world.xyz;
  out_normal = mat3(model) * in_normal;
  out_uv = in_uv;
#ifdef NORMALMAP
  out_tangent = vec4(mat3(model) * in_tangent.xyz, in_tangent.w);
#endif
  gl_Position = camera.view_projection * world;
}
