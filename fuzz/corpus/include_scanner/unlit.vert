#version 450
#extension GL_GOOGLE_include_directive : require
#pragma kiln keywords FOG VERTEX_COLOR
#pragma kiln passes Forward

#include "common/camera.glsl"

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec2 in_uv;
#ifdef VERTEX_COLOR
layout(location = 2) in vec4 in_color;
layout(location = 2) out vec4 out_color;
#endif
layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec2 out_uv;

layout(push_constant) uniform Object { mat4 model; } object;

void main() {
  vec4 world = object.model * vec4(in_position, 1.0);
  out_world_position = world.xyz;
  out_uv = in_uv;
#ifdef VERTEX_COLOR
  out_color = in_color;
#endif
  gl_Position = camera.view_projection * world;
}
