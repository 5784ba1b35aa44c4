#ifndef KILN_LIGHTING_GLSL
#define KILN_LIGHTING_GLSL

const float PI = 3.14159265359;

float distribution_ggx(vec3 n, vec3 h, float roughness) {
  float a = roughness * roughness;
  float a2 = a * a;
  float nh = max(dot(n, h), 0.0);
  float d = nh * nh * (a2 - 1.0) + 1.0;
  return a2 / (PI * d * d);
}

vec3 fresnel_schlick(float cos_theta, vec3 f0) {
  return f0 + (1.0 - f0) * pow(clamp(1.0 - cos_theta, 0.0, 1.0), 5.0);
}

vec3 shade_pbr(vec3 albedo, float metallic, float roughness, vec3 n, vec3 v, vec3 l, vec3 light_colour) {
  vec3 h = normalize(v + l);
  vec3 f0 = mix(vec3(0.04), albedo, metallic);
  vec3 f = fresnel_schlick(max(dot(h, v), 0.0), f0);
  float d = distribution_ggx(n, h, roughness);
  vec3 diffuse = (1.0 - f) * (1.0 - metallic) * albedo / PI;
  float nl = max(dot(n, l), 0.0);
  return (diffuse + f * d * 0.25) * light_colour * nl;
}

// What lights a surface where no light does: a sky above and the ground below, seen diffusely and
// in reflection (blurred toward their average as the surface gets rougher). Without it a metal
// shows only its highlights and a sphere's lower half is black.
vec3 shade_ambient(vec3 albedo, float metallic, float roughness, vec3 n, vec3 v) {
  const vec3 sky = vec3(0.32, 0.36, 0.42);
  const vec3 ground = vec3(0.09, 0.08, 0.07);
  vec3 f0 = mix(vec3(0.04), albedo, metallic);
  vec3 diffuse = mix(ground, sky, n.y * 0.5 + 0.5) * albedo * (1.0 - metallic);
  vec3 r = reflect(-v, n);
  vec3 seen = mix(ground, sky, smoothstep(-0.3, 0.3, r.y));
  vec3 environment = mix(seen, 0.5 * (sky + ground), roughness);
  return diffuse + fresnel_schlick(max(dot(n, v), 0.0), f0) * environment;
}

#endif
