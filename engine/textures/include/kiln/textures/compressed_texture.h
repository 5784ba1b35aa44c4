#pragma once
// A block-compressed texture as a textures pack ships it: every mip level's blocks, ready for the
// GPU, and what sampling needs (sRGB, wrap modes, filter, the channel mapping of the view). A
// texture that ships as RGBA (8-bit or half-float) stays a .tx; describe_shipped_texture() tells
// either kind apart and says what it holds.
//
// The record, little-endian:
//   "KILNGTEX", version, format, flags (1 sRGB, 2 normal map, 4 premultiplied alpha, 8 nearest),
//   wrap s, wrap t, swizzle (4 bytes: R G B A of the view from r g b a 0 1), width, height,
//   level count, 0; per level width, height, offset, bytes; the levels' blocks, each 16-byte
//   aligned, the padding zero.
// Decoding checks every field against the others (sizes halving down to 1x1, each level exactly its
// blocks, offsets in order inside the record, padding zero): malformed bytes are an error naming
// `where` and the field, never a read outside the record.
//
// Thread-safety: plain values and pure functions.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/textures/gpu_format.h"
#include "kiln/textures/tx_file.h"

namespace kiln::textures {

inline constexpr std::uint32_t kCompressedTextureVersion = 1;

// Where a channel of the view comes from.
enum class Swizzle : std::uint8_t { kR, kG, kB, kA, kZero, kOne };
using ChannelMapping = std::array<Swizzle, 4>;
inline constexpr ChannelMapping kIdentityMapping{Swizzle::kR, Swizzle::kG, Swizzle::kB, Swizzle::kA};

struct CompressedLevel {
  std::uint32_t width = 0, height = 0;
  std::span<const std::byte> blocks;  // gpu_level_bytes(format, width, height) bytes
};

struct CompressedTexture {
  GpuFormat format = GpuFormat::kBc1;
  bool srgb = false;
  bool normal_map = false;  // x in the view's R, y in G, z for the shader to reconstruct
  bool alpha = false;       // has alpha, colour premultiplied by it
  bool nearest = false;     // sampled without filtering
  WrapMode wrap_s = WrapMode::Periodic, wrap_t = WrapMode::Periodic;
  ChannelMapping mapping = kIdentityMapping;
  std::vector<CompressedLevel> levels;  // [0] is the full image; views into the record (or the encoder's blocks)
};

bool is_compressed_texture(std::span<const std::byte> bytes);  // starts with the record's magic
std::vector<std::byte> encode_compressed_texture(const CompressedTexture& texture);
// The record's levels are views into `bytes`, which must outlive them.
Result<CompressedTexture> decode_compressed_texture(std::span<const std::byte> bytes, const std::string& where);

// What a shipped texture holds, whichever its kind.
struct ShippedLevel {
  std::uint32_t width = 0, height = 0;
  std::uint64_t bytes = 0;  // on the GPU
};
struct ShippedTexture {
  GpuFormat format = GpuFormat::kRgba8;
  bool tx = false;  // a .tx (uploaded as RGBA) rather than a compressed record
  bool srgb = false, normal_map = false, alpha = false;
  std::vector<ShippedLevel> levels;
  std::uint64_t gpu_bytes() const;
};
// A .tx (8-bit: rgba8; 16/32-bit float: rgba16f) or a compressed record; errors name `where`.
Result<ShippedTexture> describe_shipped_texture(std::span<const std::byte> bytes, const std::string& where);

std::string_view swizzle_name(Swizzle swizzle);  // "r", "g", "b", "a", "0", "1"

}  // namespace kiln::textures
