#version 450
#extension GL_GOOGLE_include_directive : require
#pragma kiln keywords FOG SKIN NORMALMAP ALPHA_TEST
#pragma kiln passes Forward Shadow Depth
// Shipped whether or not a material uses them (fog is switched on at run time), and a
// combination that never makes sense: skinned meshes are never alpha-tested.
#pragma kiln ship FOG SKIN
#pragma kiln ship FOG SKIN ALPHA_TEST
#pragma kiln invalid SKIN ALPHA_TEST

#include "common/camera.glsl"
#include "common/lighting.glsl"
#ifdef FOG
#include "common/fog.glsl"
#endif

layout(constant_id = 0) const int LIGHT_COUNT = 4;

layout(set = 1, binding = 1) uniform Material {
  vec4 base_color;
  float roughness;
  float metallic;
  float alpha_cutoff;
} material;
layout(set = 1, binding = 2) uniform sampler2D albedo_map;
#ifdef NORMALMAP
layout(set = 1, binding = 3) uniform sampler2D normal_map;
#endif

layout(location = 0) in vec3 in_world_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
#ifdef NORMALMAP
layout(location = 3) in vec4 in_tangent;
#endif

#ifdef KILN_PASS_FORWARD
layout(location = 0) out vec4 out_color;
#endif

void main() {
  vec4 albedo = texture(albedo_map, in_uv) * material.base_color;
#ifdef ALPHA_TEST
  if (albedo.a < material.alpha_cutoff) discard;
#endif
#ifdef KILN_PASS_FORWARD
  vec3 n = normalize(in_normal);
#ifdef NORMALMAP
  vec3 t = normalize(in_tangent.xyz);
  vec3 b = cross(n, t) * in_tangent.w;
  // Tangent-space normals from x and y alone, z rebuilt: what a two-channel normal map (BC5, or
  // ASTC's normal-map encoding) ships, and exact for an RGBA8 one.
  vec2 nxy = texture(normal_map, in_uv).xy * 2.0 - 1.0;
  vec3 tn = vec3(nxy, sqrt(max(0.0, 1.0 - dot(nxy, nxy))));
  n = normalize(mat3(t, b, n) * tn);
#endif
  vec3 v = normalize(camera.position.xyz - in_world_position);
  vec3 colour = shade_ambient(albedo.rgb, material.metallic, material.roughness, n, v);
  for (int i = 0; i < LIGHT_COUNT; ++i) {
    vec3 l = normalize(vec3(float(i) - 1.5, 2.0, 1.0));
    colour += shade_pbr(albedo.rgb, material.metallic, material.roughness, n, v, l, vec3(1.0));
  }
#ifdef FOG
  colour = apply_fog(colour, in_world_position);
#endif
  out_color = vec4(colour, albedo.a);
#endif
}
