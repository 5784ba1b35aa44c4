#pragma once
// One mip level to and from a GPU block format: BC1, BC3, BC4 and BC5 through libsquish, BC7
// through Kiln's encoder (bc7.h), ASTC LDR through libastcenc. Levels are RGBA8 as a .tx delivers
// them (premultiplied, in the texture's own encoding: sRGB colour stays sRGB-encoded, as the GPU's
// sRGB block formats decode it).
//
// What each format keeps: BC1 RGB (opaque); BC3 and BC7 RGBA; BC4 R; BC5 R and G; ASTC RGBA, or for
// a normal map x and y (stored as ASTC's normal-map encoding: x in RGB, y in A). Decoding returns
// the texels the GPU reads before the view's channel mapping (compressed_texture.h): apply_mapping()
// turns them into what a shader samples.
//
// Thread-safety: pure functions; with a pool, a level's blocks are encoded on its workers.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/core/worker_pool.h"
#include "kiln/textures/compressed_texture.h"
#include "kiln/textures/gpu_format.h"

namespace kiln::texture_codecs {

struct RgbaLevel {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4
};

struct EncodeOptions {
  bool srgb = false;        // ASTC's sRGB profile; BC formats store the encoded values either way
  bool normal_map = false;  // ASTC's normal-map encoding
  bool opaque = false;      // every alpha is one: ASTC spends nothing on it
  int bc7_partitions = 8;   // see Bc7Options
  float astc_effort = 60;   // astcenc's quality preset: 60 is -medium
};

// The level's blocks, gpu_level_bytes(format, width, height) of them. `pool` may be null.
Result<std::vector<std::byte>> encode_level(const RgbaLevel& level, textures::GpuFormat format,
                                            const EncodeOptions& options, core::WorkerPool* pool = nullptr);
// The texels of `blocks` (a level of width x height in `format`); RGBA8 levels are copied.
Result<RgbaLevel> decode_level(std::span<const std::byte> blocks, textures::GpuFormat format, std::uint32_t width,
                               std::uint32_t height, bool srgb = false);
// The view's channel mapping applied to decoded texels, in place.
void apply_mapping(RgbaLevel& level, const textures::ChannelMapping& mapping);

// What built an encoding: part of every cache key of encoded textures.
std::string encoder_versions();

}  // namespace kiln::texture_codecs
