#version 450
#extension GL_GOOGLE_include_directive : require
#pragma kiln keywords FOG VERTEX_COLOR
#pragma kiln passes Forward

#include "common/camera.glsl"
#ifdef FOG
#include "common/fog.glsl"
#endif

layout(set = 1, binding = 0) uniform sampler2D main_texture;
layout(set = 1, binding = 1) uniform Tint { vec4 color; } tint;

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec2 in_uv;
#ifdef VERTEX_COLOR
layout(location = 2) in vec4 in_color;
#endif
layout(location = 0) out vec4 out_color;

void main() {
  vec4 c = texture(main_texture, in_uv) * tint.color;
#ifdef VERTEX_COLOR
  c *= in_color;
#endif
#ifdef FOG
  c.rgb = apply_fog(c.rgb, in_world_position);
#endif
  out_color = c;
}
