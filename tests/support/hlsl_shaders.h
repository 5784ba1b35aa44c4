#pragma once
// HLSL stages as a project writes them: the sample project's unlit shader again (the same camera
// block, push constant, vertex inputs, texture slot and tint), with a Texture2D and its
// SamplerState, a vertex entry point other than main, a keyword, and an include written with a
// backslash. A compute stage with its own entry point for `--entry`.

namespace kiln::test {

inline constexpr const char* kHlslCameraInclude = R"(// The camera block of the sample project's common/camera.glsl.
#ifndef KILN_CAMERA_HLSLI
#define KILN_CAMERA_HLSLI
[[vk::binding(0, 0)]] cbuffer Camera {
  float4x4 view_projection;
  float4 camera_position;
  float4 fog_params;
};
#endif
)";

inline constexpr const char* kHlslUnlitVert = R"(#pragma kiln keywords FOG
#pragma kiln passes Forward
#pragma kiln entry VSMain
#include "common\camera.hlsli"

struct Object { float4x4 model; };
[[vk::push_constant]] ConstantBuffer<Object> object;

struct VSOut {
  float4 position : SV_Position;
  [[vk::location(0)]] float3 world_position : TEXCOORD0;
  [[vk::location(1)]] float2 uv : TEXCOORD1;
};

VSOut VSMain([[vk::location(0)]] float3 in_position : POSITION, [[vk::location(1)]] float2 in_uv : TEXCOORD0) {
  VSOut o;
  float4 world = mul(object.model, float4(in_position, 1.0));
  o.world_position = world.xyz;
  o.uv = in_uv;
  o.position = mul(view_projection, world);
  return o;
}
)";

inline constexpr const char* kHlslUnlitFrag = R"(#pragma kiln keywords FOG
#pragma kiln passes Forward
#include "common\camera.hlsli"

[[vk::binding(0, 1)]] Texture2D main_texture;
[[vk::binding(2, 1)]] SamplerState sampler_main_texture;
[[vk::binding(1, 1)]] cbuffer Tint { float4 color; };

float4 main([[vk::location(0)]] float3 world_position : TEXCOORD0, [[vk::location(1)]] float2 uv : TEXCOORD1)
    : SV_Target {
  float4 c = main_texture.Sample(sampler_main_texture, uv) * color;
#ifdef FOG
  float d = distance(world_position, camera_position.xyz);
  float f = exp(-fog_params.x * d);
  c.rgb = lerp(fog_params.yzw, c.rgb, saturate(f));
#endif
  return c;
}
)";

inline constexpr const char* kHlslBlurComp = R"(#pragma kiln keywords WIDE
RWStructuredBuffer<float> values : register(u0);
cbuffer Params : register(b1) { uint count; float scale; };

[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) {
  if (id.x >= count) return;
#ifdef WIDE
  values[id.x] = (values[id.x] + values[(id.x + 1) % count] + values[(id.x + 2) % count]) * scale;
#else
  values[id.x] = values[id.x] * scale;
#endif
}

[numthreads(1, 1, 1)]
void Clear(uint3 id : SV_DispatchThreadID) { values[id.x] = 0; }
)";

}  // namespace kiln::test
