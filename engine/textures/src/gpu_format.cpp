#include "kiln/textures/gpu_format.h"

#include <array>

namespace kiln::textures {
namespace {

struct Row {
  GpuFormat format;
  GpuFormatInfo info;
};

constexpr GpuFormatFamily family_of(std::string_view name) {
  return name.substr(0, 2) == "bc"     ? GpuFormatFamily::kBc
         : name.substr(0, 4) == "astc" ? GpuFormatFamily::kAstc
                                       : GpuFormatFamily::kUncompressed;
}

constexpr std::array kFormats{
#define KILN_GPU_FORMAT_ROW(name, stored, bw, bh, bytes, value) \
  Row{GpuFormat::k##name, GpuFormatInfo{stored, bw, bh, bytes, family_of(stored)}},
    KILN_GPU_FORMATS(KILN_GPU_FORMAT_ROW)
#undef KILN_GPU_FORMAT_ROW
};

}  // namespace

const GpuFormatInfo& gpu_format_info(GpuFormat format) {
  for (const Row& row : kFormats)
    if (row.format == format) return row.info;
  return kFormats[0].info;
}

std::string_view gpu_format_name(GpuFormat format) { return gpu_format_info(format).name; }

std::optional<GpuFormat> parse_gpu_format(std::string_view name) {
  for (const Row& row : kFormats)
    if (row.info.name == name) return row.format;
  return std::nullopt;
}

std::optional<GpuFormat> gpu_format_from_value(std::uint8_t value) {
  for (const Row& row : kFormats)
    if (static_cast<std::uint8_t>(row.format) == value) return row.format;
  return std::nullopt;
}

std::string gpu_format_names() {
  std::string out;
  for (const Row& row : kFormats) out += (out.empty() ? "" : ", ") + std::string(row.info.name);
  return out;
}

bool is_block_compressed(GpuFormat format) { return gpu_format_info(format).family != GpuFormatFamily::kUncompressed; }

std::uint64_t gpu_level_bytes(GpuFormat format, std::uint32_t width, std::uint32_t height) {
  const GpuFormatInfo& info = gpu_format_info(format);
  const std::uint64_t bx = (std::uint64_t(width) + info.block_width - 1) / info.block_width;
  const std::uint64_t by = (std::uint64_t(height) + info.block_height - 1) / info.block_height;
  return bx * by * info.block_bytes;
}

}  // namespace kiln::textures

namespace kiln::textures {

std::string_view texture_shipping_name(TextureShipping shipping) {
  switch (shipping) {
    case TextureShipping::kBc: return "bc";
    case TextureShipping::kAstc: return "astc";
    case TextureShipping::kRgba8: break;
  }
  return "rgba8";
}

std::optional<TextureShipping> parse_texture_shipping(std::string_view name) {
  for (TextureShipping s : {TextureShipping::kRgba8, TextureShipping::kBc, TextureShipping::kAstc})
    if (texture_shipping_name(s) == name) return s;
  return std::nullopt;
}

std::string_view texture_quality_name(TextureQuality quality) {
  switch (quality) {
    case TextureQuality::kLow: return "low";
    case TextureQuality::kHigh: return "high";
    case TextureQuality::kMedium: break;
  }
  return "medium";
}

std::optional<TextureQuality> parse_texture_quality(std::string_view name) {
  for (TextureQuality q : {TextureQuality::kLow, TextureQuality::kMedium, TextureQuality::kHigh})
    if (texture_quality_name(q) == name) return q;
  return std::nullopt;
}

GpuFormat choose_gpu_format(TextureShipping shipping, TextureQuality quality, const TextureTraits& traits,
                            const GpuFormatOverride& override_format) {
  switch (shipping) {
    case TextureShipping::kRgba8: return GpuFormat::kRgba8;
    case TextureShipping::kBc:
      if (override_format.bc) return *override_format.bc;
      if (traits.normal_map) return GpuFormat::kBc5;
      if (traits.single_channel) return GpuFormat::kBc4;
      if (quality == TextureQuality::kHigh) return GpuFormat::kBc7;
      if (traits.alpha) return quality == TextureQuality::kLow ? GpuFormat::kBc3 : GpuFormat::kBc7;
      return GpuFormat::kBc1;
    case TextureShipping::kAstc:
      if (override_format.astc) return *override_format.astc;
      return quality == TextureQuality::kHigh  ? GpuFormat::kAstc4x4
             : quality == TextureQuality::kLow ? GpuFormat::kAstc8x8
                                               : GpuFormat::kAstc6x6;
  }
  return GpuFormat::kRgba8;
}

}  // namespace kiln::textures
