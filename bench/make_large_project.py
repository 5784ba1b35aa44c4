#!/usr/bin/env python3
"""Writes a large Kiln project for the build-farm benchmark and tests: several shaders sharing
includes, a material for every keyword combination of each (so thousands of variants over three
passes), and hundreds of textures. Deterministic: the same arguments write the same bytes.

usage: bench/make_large_project.py <dir> [--shaders 6] [--keywords 7] [--textures 200] [--size 128]
                                     [--hlsl 0]

--hlsl N writes the last N shaders in HLSL (`s5.vert.hlsl`, `s5.frag.hlsl`, with `.hlsli` includes and
a vertex entry point named by `#pragma kiln entry`), the same shading as the GLSL ones.
"""
import argparse
import json
import os
import random
import struct
import zlib


def png(path, width, height, rng):
    rows = bytearray()
    base = [rng.randrange(256) for _ in range(3)]
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            n = rng.randrange(32)
            rows += bytes(((base[0] + x + n) & 255, (base[1] + y + n) & 255, (base[2] + x * y + n) & 255))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(rows), 6)))
        f.write(chunk(b"IEND", b""))


COMMON = """#ifndef BENCH_COMMON_{n}
#define BENCH_COMMON_{n}
layout(set = 0, binding = 0) uniform Camera {{ mat4 view_projection; vec3 eye; }} camera;
vec3 bench_tone_{n}(vec3 c) {{ return c / (c + vec3(1.0 + {n}.0 * 0.01)); }}
#endif
"""

VERT = """#version 450
#extension GL_GOOGLE_include_directive : require
#pragma kiln keywords {keywords}
#pragma kiln passes Forward Shadow Depth
#include "common/common_{group}.glsl"
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(push_constant) uniform Object {{ mat4 model; }} object;
layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec2 out_uv;
void main() {{
  vec4 world = object.model * vec4(in_position, 1.0);
{vertex_bits}
  out_normal = mat3(object.model) * in_normal;
  out_uv = in_uv;
  gl_Position = camera.view_projection * world;
}}
"""

FRAG = """#version 450
#extension GL_GOOGLE_include_directive : require
#pragma kiln keywords {keywords}
#pragma kiln passes Forward Shadow Depth
#include "common/common_{group}.glsl"
#include "common/shading.glsl"
layout(set = 1, binding = 1) uniform Material {{ vec4 tint; float strength; }} material;
layout(set = 1, binding = 2) uniform sampler2D albedo_map;
layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 0) out vec4 out_color;
void main() {{
  vec3 c = texture(albedo_map, in_uv).rgb * material.tint.rgb;
  vec3 n = normalize(in_normal);
{fragment_bits}
  out_color = vec4(bench_tone_{group}(c), material.tint.a);
}}
"""

SHADING = """#ifndef BENCH_SHADING
#define BENCH_SHADING
float bench_wrap(vec3 n, vec3 l, float w) { return max((dot(n, l) + w) / (1.0 + w), 0.0); }
vec3 bench_rim(vec3 c, vec3 n, float p) { return c + pow(1.0 - abs(n.z), p) * vec3(0.2); }
#endif
"""


COMMON_HLSL = """#ifndef BENCH_COMMON_{n}
#define BENCH_COMMON_{n}
[[vk::binding(0, 0)]] cbuffer Camera {{ float4x4 view_projection; float3 eye; }};
float3 bench_tone_{n}(float3 c) {{ return c / (c + (1.0 + {n}.0 * 0.01)); }}
#endif
"""

VERT_HLSL = """#pragma kiln keywords {keywords}
#pragma kiln passes Forward Shadow Depth
#pragma kiln entry VSMain
#include "common\\common_{group}.hlsli"
struct Object {{ float4x4 model; }};
[[vk::push_constant]] ConstantBuffer<Object> object;
struct VSOut {{
  float4 position : SV_Position;
  [[vk::location(0)]] float3 normal : NORMAL;
  [[vk::location(1)]] float2 uv : TEXCOORD0;
}};
VSOut VSMain([[vk::location(0)]] float3 in_position : POSITION, [[vk::location(1)]] float3 in_normal : NORMAL,
             [[vk::location(2)]] float2 in_uv : TEXCOORD0) {{
  VSOut o;
  float4 world = mul(object.model, float4(in_position, 1.0));
{vertex_bits}
  o.normal = mul((float3x3)object.model, in_normal);
  o.uv = in_uv;
  o.position = mul(view_projection, world);
  return o;
}}
"""

FRAG_HLSL = """#pragma kiln keywords {keywords}
#pragma kiln passes Forward Shadow Depth
#include "common\\common_{group}.hlsli"
#include "common/shading.hlsli"
[[vk::binding(1, 1)]] cbuffer Material {{ float4 tint; float strength; }};
[[vk::binding(2, 1)]] Texture2D albedo_map;
[[vk::binding(3, 1)]] SamplerState sampler_albedo_map;
float4 main([[vk::location(0)]] float3 in_normal : NORMAL, [[vk::location(1)]] float2 in_uv : TEXCOORD0) : SV_Target {{
  float3 c = albedo_map.Sample(sampler_albedo_map, in_uv).rgb * tint.rgb;
  float3 n = normalize(in_normal);
{fragment_bits}
  return float4(bench_tone_{group}(c), tint.a);
}}
"""

SHADING_HLSL = """#ifndef BENCH_SHADING
#define BENCH_SHADING
float bench_wrap(float3 n, float3 l, float w) { return max((dot(n, l) + w) / (1.0 + w), 0.0); }
float3 bench_rim(float3 c, float3 n, float p) { return c + pow(1.0 - abs(n.z), p) * 0.2; }
#endif
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--shaders", type=int, default=6)
    parser.add_argument("--keywords", type=int, default=7)
    parser.add_argument("--textures", type=int, default=200)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--hlsl", type=int, default=0, help="the last N shaders in HLSL")
    args = parser.parse_args()
    rng = random.Random(1234)
    root = args.dir
    for sub in ("shaders/common", "materials", "textures", "scripts"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)

    def write(rel, text):
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)

    groups = 3
    for g in range(groups):
        write(f"shaders/common/common_{g}.glsl", COMMON.format(n=g))
        write(f"shaders/common/common_{g}.hlsli", COMMON_HLSL.format(n=g))
    write("shaders/common/shading.glsl", SHADING)
    write("shaders/common/shading.hlsli", SHADING_HLSL)
    for t in range(args.textures):
        png(os.path.join(root, f"textures/t{t:03d}.png"), args.size, args.size, rng)

    material = 0
    for s in range(args.shaders):
        keywords = [f"K{s}_{k}" for k in range(args.keywords)]
        vertex_bits = "\n".join(
            f"#ifdef {kw}\n  world.xyz += in_normal * {0.001 * (k + 1):.3f};\n#endif" for k, kw in enumerate(keywords[:2]))
        fragment_bits = "\n".join(
            f"#ifdef {kw}\n  c = {'bench_rim(c, n, ' + str(k + 2) + '.0)' if k % 2 else 'c * bench_wrap(n, normalize(vec3(0.3, 0.6, ' + str(k) + '.0)), 0.5)'};\n#endif"
            for k, kw in enumerate(keywords))
        group = s % groups
        if s >= args.shaders - args.hlsl:
            fragment_bits = fragment_bits.replace("vec3(", "float3(")
            write(f"shaders/s{s}.vert.hlsl",
                  VERT_HLSL.format(keywords=" ".join(keywords), group=group, vertex_bits=vertex_bits))
            write(f"shaders/s{s}.frag.hlsl",
                  FRAG_HLSL.format(keywords=" ".join(keywords), group=group, fragment_bits=fragment_bits))
        else:
            write(f"shaders/s{s}.vert", VERT.format(keywords=" ".join(keywords), group=group, vertex_bits=vertex_bits))
            write(f"shaders/s{s}.frag", FRAG.format(keywords=" ".join(keywords), group=group, fragment_bits=fragment_bits))
        for mask in range(1 << args.keywords):
            chosen = [kw for k, kw in enumerate(keywords) if mask & (1 << k)]
            doc = {"shader": f"shaders/s{s}", "keywords": chosen,
                   "params": {"tint": [rng.random(), rng.random(), rng.random(), 1.0], "strength": rng.random()},
                   "textures": {"albedo_map": f"textures/t{material % args.textures:03d}.png"}}
            write(f"materials/m{material:05d}.json", json.dumps(doc, sort_keys=True) + "\n")
            material += 1
    write("scripts/tick.lua", "local total = 0\nfor i = 1, 1000 do\n  total = total + i\nend\nprint(total)\n")
    variants = args.shaders * (1 << args.keywords) * 3
    print(f"{root}: {args.shaders} shaders, {material} materials, {variants} variants, {args.textures} textures")


if __name__ == "__main__":
    main()
