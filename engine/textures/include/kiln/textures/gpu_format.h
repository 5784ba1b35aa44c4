#pragma once
// The formats a texture ships in: the 8-bit and half-float .tx a renderer uploads as RGBA, and the
// block-compressed formats GPUs sample directly (BC1-BC7 on desktop, ASTC LDR on mobile). A block
// format stores each block of block_width x block_height texels in block_bytes; a level's blocks
// cover it, its edge blocks padded.
//
// Thread-safety: plain values and pure functions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::textures {

// The one table of formats: X(Name, stored name, block width, block height, block bytes).
// The numbers are the stored values of the format in a compressed texture record: never reuse one.
#define KILN_GPU_FORMATS(X)           \
  X(Rgba8, "rgba8", 1, 1, 4, 1)       \
  X(Rgba16f, "rgba16f", 1, 1, 8, 2)   \
  X(Bc1, "bc1", 4, 4, 8, 3)           \
  X(Bc3, "bc3", 4, 4, 16, 4)          \
  X(Bc4, "bc4", 4, 4, 8, 5)           \
  X(Bc5, "bc5", 4, 4, 16, 6)          \
  X(Bc7, "bc7", 4, 4, 16, 7)          \
  X(Astc4x4, "astc4x4", 4, 4, 16, 8)  \
  X(Astc5x5, "astc5x5", 5, 5, 16, 9)  \
  X(Astc6x6, "astc6x6", 6, 6, 16, 10) \
  X(Astc8x8, "astc8x8", 8, 8, 16, 11)

enum class GpuFormat : std::uint8_t {
#define KILN_GPU_FORMAT_ENUMERATOR(name, stored, bw, bh, bytes, value) k##name = value,
  KILN_GPU_FORMATS(KILN_GPU_FORMAT_ENUMERATOR)
#undef KILN_GPU_FORMAT_ENUMERATOR
};

// Which GPUs sample a format: every one (RGBA), desktop (BC) or mobile (ASTC).
enum class GpuFormatFamily { kUncompressed, kBc, kAstc };

struct GpuFormatInfo {
  std::string_view name;  // "bc7"
  std::uint32_t block_width = 1, block_height = 1, block_bytes = 4;
  GpuFormatFamily family = GpuFormatFamily::kUncompressed;
};

const GpuFormatInfo& gpu_format_info(GpuFormat format);
std::string_view gpu_format_name(GpuFormat format);
std::optional<GpuFormat> parse_gpu_format(std::string_view name);
// A stored value read from a record; nullopt for one this build does not know.
std::optional<GpuFormat> gpu_format_from_value(std::uint8_t value);
// Every name, for messages: "rgba8, rgba16f, bc1, ...".
std::string gpu_format_names();
bool is_block_compressed(GpuFormat format);

// The bytes of a width x height level in `format`: whole blocks, rounded up at the edges.
std::uint64_t gpu_level_bytes(GpuFormat format, std::uint32_t width, std::uint32_t height);

}  // namespace kiln::textures

namespace kiln::textures {

// How a cook target ships its textures (`"textures"` in a target of kiln.json): as the .tx's RGBA,
// or block-compressed for desktop GPUs (BC) or mobile ones (ASTC).
enum class TextureShipping : std::uint8_t { kRgba8, kBc, kAstc };
std::string_view texture_shipping_name(TextureShipping shipping);  // "rgba8", "bc", "astc"
std::optional<TextureShipping> parse_texture_shipping(std::string_view name);

// How much a target spends on texture quality (`"texture_quality"`): the ASTC block size (high 4x4,
// medium 6x6, low 8x8) and the BC format of colour (high: BC7 for all colour; medium: BC1 opaque,
// BC7 with alpha; low: BC1 opaque, BC3 with alpha).
enum class TextureQuality : std::uint8_t { kLow, kMedium, kHigh };
std::string_view texture_quality_name(TextureQuality quality);  // "low", "medium", "high"
std::optional<TextureQuality> parse_texture_quality(std::string_view name);

// A texture's own choice (its `gpu_format` setting), per family of targets: a BC format (or rgba8)
// for BC targets, an ASTC one (or rgba8) for ASTC targets.
struct GpuFormatOverride {
  std::optional<GpuFormat> bc, astc;
  bool operator==(const GpuFormatOverride&) const = default;
};

// What decides a texture's format, besides the target.
struct TextureTraits {
  bool normal_map = false;
  bool single_channel = false;  // gray without alpha: a mask or height
  bool alpha = false;           // some texel is not opaque
};

// The format a texture ships in for a target; kRgba8 means the .tx as it is.
GpuFormat choose_gpu_format(TextureShipping shipping, TextureQuality quality, const TextureTraits& traits,
                            const GpuFormatOverride& override_format = {});

}  // namespace kiln::textures
