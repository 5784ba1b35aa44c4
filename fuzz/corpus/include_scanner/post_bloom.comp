#version 450
#pragma kiln keywords HDR
// A post-process pass: bright-pass and 5-tap blur of one image row per work group.

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, rgba16f) uniform readonly image2D source_image;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D bloom_image;
layout(push_constant) uniform Params { float threshold; float intensity; } params;

const float WEIGHTS[5] = float[](0.0625, 0.25, 0.375, 0.25, 0.0625);

void main() {
  ivec2 size = imageSize(source_image);
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  vec3 sum = vec3(0.0);
  for (int i = -2; i <= 2; ++i) {
    vec3 c = imageLoad(source_image, ivec2(clamp(p.x + i, 0, size.x - 1), p.y)).rgb;
#ifdef HDR
    c = c / (1.0 + c);
#endif
    sum += max(c - vec3(params.threshold), vec3(0.0)) * WEIGHTS[i + 2];
  }
  imageStore(bloom_image, p, vec4(sum * params.intensity, 1.0));
}
