// Per-view data shared by every shader.
#ifndef KILN_CAMERA_GLSL
#define KILN_CAMERA_GLSL

layout(set = 0, binding = 0) uniform Camera {
  mat4 view_projection;
  vec4 position;   // xyz: world position
  vec4 fog_params; // x: density, yzw: fog colour
} camera;

#endif
