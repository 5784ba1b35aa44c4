#ifndef KILN_FOG_GLSL
#define KILN_FOG_GLSL
#include "camera.glsl"

vec3 apply_fog(vec3 colour, vec3 world_position) {
  float d = distance(world_position, camera.position.xyz);
  float f = exp(-camera.fog_params.x * d);
  return mix(camera.fog_params.yzw, colour, clamp(f, 0.0, 1.0));
}

#endif
