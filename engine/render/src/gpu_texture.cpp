#include "kiln/render/gpu_texture.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kiln/texture_codecs/compress_tx.h"
#include "kiln/textures/compressed_texture.h"
#include "kiln/textures/tx_file.h"

namespace kiln::render {
namespace {

VkSamplerAddressMode address_mode(textures::WrapMode mode) {
  switch (mode) {
    case textures::WrapMode::Black: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
    case textures::WrapMode::Clamp: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case textures::WrapMode::Periodic: return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    case textures::WrapMode::Mirror: return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
  }
  return VK_SAMPLER_ADDRESS_MODE_REPEAT;
}

Result<VkSampler> make_sampler(VkDevice device, const textures::TxInfo& info, std::uint32_t levels) {
  VkSamplerCreateInfo s{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  s.magFilter = s.minFilter = info.nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
  s.mipmapMode = info.nearest ? VK_SAMPLER_MIPMAP_MODE_NEAREST : VK_SAMPLER_MIPMAP_MODE_LINEAR;
  s.addressModeU = address_mode(info.wrap_s);
  s.addressModeV = address_mode(info.wrap_t);
  s.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  s.borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK;
  s.maxLod = float(levels);
  VkSampler sampler = VK_NULL_HANDLE;
  if (VkResult r = vkCreateSampler(device, &s, nullptr, &sampler); r != VK_SUCCESS)
    return make_error(std::string("cannot create a sampler: ") + vk_result_name(r));
  return sampler;
}

VkFormat block_format(textures::GpuFormat format, bool srgb) {
  using textures::GpuFormat;
  switch (format) {
    case GpuFormat::kBc1: return srgb ? VK_FORMAT_BC1_RGB_SRGB_BLOCK : VK_FORMAT_BC1_RGB_UNORM_BLOCK;
    case GpuFormat::kBc3: return srgb ? VK_FORMAT_BC3_SRGB_BLOCK : VK_FORMAT_BC3_UNORM_BLOCK;
    case GpuFormat::kBc4: return VK_FORMAT_BC4_UNORM_BLOCK;
    case GpuFormat::kBc5: return VK_FORMAT_BC5_UNORM_BLOCK;
    case GpuFormat::kBc7: return srgb ? VK_FORMAT_BC7_SRGB_BLOCK : VK_FORMAT_BC7_UNORM_BLOCK;
    case GpuFormat::kAstc4x4: return srgb ? VK_FORMAT_ASTC_4x4_SRGB_BLOCK : VK_FORMAT_ASTC_4x4_UNORM_BLOCK;
    case GpuFormat::kAstc5x5: return srgb ? VK_FORMAT_ASTC_5x5_SRGB_BLOCK : VK_FORMAT_ASTC_5x5_UNORM_BLOCK;
    case GpuFormat::kAstc6x6: return srgb ? VK_FORMAT_ASTC_6x6_SRGB_BLOCK : VK_FORMAT_ASTC_6x6_UNORM_BLOCK;
    case GpuFormat::kAstc8x8: return srgb ? VK_FORMAT_ASTC_8x8_SRGB_BLOCK : VK_FORMAT_ASTC_8x8_UNORM_BLOCK;
    default: return VK_FORMAT_UNDEFINED;
  }
}

// The device samples `format` with filtering, its family's feature enabled.
bool samples(const VulkanContext& context, textures::GpuFormat format, VkFormat vk_format) {
  const auto family = textures::gpu_format_info(format).family;
  if (family == textures::GpuFormatFamily::kBc && !context.texture_compression_bc()) return false;
  if (family == textures::GpuFormatFamily::kAstc && !context.texture_compression_astc()) return false;
  VkFormatProperties properties{};
  vkGetPhysicalDeviceFormatProperties(context.physical_device(), vk_format, &properties);
  const VkFormatFeatureFlags wanted = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                                      VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  return (properties.optimalTilingFeatures & wanted) == wanted;
}

VkComponentSwizzle component(textures::Swizzle s) {
  switch (s) {
    case textures::Swizzle::kR: return VK_COMPONENT_SWIZZLE_R;
    case textures::Swizzle::kG: return VK_COMPONENT_SWIZZLE_G;
    case textures::Swizzle::kB: return VK_COMPONENT_SWIZZLE_B;
    case textures::Swizzle::kA: return VK_COMPONENT_SWIZZLE_A;
    case textures::Swizzle::kZero: return VK_COMPONENT_SWIZZLE_ZERO;
    case textures::Swizzle::kOne: return VK_COMPONENT_SWIZZLE_ONE;
  }
  return VK_COMPONENT_SWIZZLE_IDENTITY;
}

}  // namespace

// Levels already in the image's format, one after another in a staging buffer.
Status GpuTexture::fill(const VulkanContext& context, const std::vector<std::span<const std::byte>>& levels,
                        const std::vector<std::pair<std::uint32_t, std::uint32_t>>& sizes) {
  VkDeviceSize total = 0;
  for (const auto& l : levels) total += (l.size() + 15) & ~VkDeviceSize(15);
  auto staging = Buffer::create(context, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  if (!staging) return staging.error();
  std::vector<VkBufferImageCopy> copies;
  VkDeviceSize at = 0;
  for (std::uint32_t l = 0; l < levels.size(); ++l) {
    (*staging)->write(levels[l], at);
    VkBufferImageCopy copy{};
    copy.bufferOffset = at;
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1};
    copy.imageExtent = {sizes[l].first, sizes[l].second, 1};
    copies.push_back(copy);
    at += (levels[l].size() + 15) & ~VkDeviceSize(15);  // block formats want aligned offsets
  }
  const VkImage handle = image_->handle();
  const auto mips = std::uint32_t(levels.size());
  levels_ = mips;
  return submit_and_wait(context, [&](VkCommandBuffer cmd) {
    transition(cmd, handle, VK_IMAGE_ASPECT_COLOR_BIT, mips, VK_IMAGE_LAYOUT_UNDEFINED,
               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    vkCmdCopyBufferToImage(cmd, (*staging)->handle(), handle, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           std::uint32_t(copies.size()), copies.data());
    transition(cmd, handle, VK_IMAGE_ASPECT_COLOR_BIT, mips, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  });
}

Result<std::unique_ptr<GpuTexture>> GpuTexture::upload_compressed(const VulkanContext& context, const std::string& name,
                                                                  std::span<const std::byte> bytes,
                                                                  const TextureUploadOptions& options) {
  auto texture = textures::decode_compressed_texture(bytes, name);
  if (!texture) return texture.error();
  const VkFormat vk_format = block_format(texture->format, texture->srgb);
  const bool sampled = samples(context, texture->format, vk_format);
  const std::string format_name(textures::gpu_format_name(texture->format));
  if (!sampled && !options.decode_unsupported)
    return make_error(name + ": " + format_name + " is not a format " + context.identity().name +
                      " samples (cook the set for this device's formats, or set render.decode_textures to decode)");
  std::unique_ptr<GpuTexture> self(new GpuTexture());
  self->device_ = context.device();
  self->shipped_format_ = textures::gpu_format_name(texture->format);
  self->decoded_ = !sampled;
  std::vector<std::vector<std::uint8_t>> decoded;
  std::vector<std::span<const std::byte>> levels;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes;
  for (std::size_t l = 0; l < texture->levels.size(); ++l) {
    const auto& level = texture->levels[l];
    sizes.emplace_back(level.width, level.height);
    if (sampled) {
      levels.push_back(level.blocks);
      continue;
    }
    auto rgba = texture_codecs::decode_record_level(*texture, l);
    if (!rgba) return make_error(name + ": " + rgba.error().message);
    decoded.push_back(std::move(rgba->rgba));
    levels.push_back(std::as_bytes(std::span(decoded.back())));
  }
  const VkFormat format = sampled ? vk_format : texture->srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM;
  ImageDesc desc{texture->levels[0].width, texture->levels[0].height, std::uint32_t(texture->levels.size()), format,
                 VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT};
  if (sampled)  // decoded levels have the mapping applied already
    for (int c = 0; c < 4; ++c) desc.components[c] = component(texture->mapping[c]);
  auto image = Image::create(context, desc);
  if (!image) return make_error(name + ": " + image.error().message);
  self->image_ = std::move(*image);
  KILN_TRY(self->fill(context, levels, sizes));
  textures::TxInfo sampling;
  sampling.wrap_s = texture->wrap_s;
  sampling.wrap_t = texture->wrap_t;
  sampling.nearest = texture->nearest;
  auto sampler = make_sampler(self->device_, sampling, std::uint32_t(levels.size()));
  if (!sampler) return sampler.error();
  self->sampler_ = *sampler;
  return self;
}

Result<std::unique_ptr<GpuTexture>> GpuTexture::upload(const VulkanContext& context, const std::string& name,
                                                       std::span<const std::byte> tx,
                                                       const TextureUploadOptions& options) {
  if (textures::is_compressed_texture(tx)) return upload_compressed(context, name, tx, options);
  auto file = textures::TxFile::open_memory(name, tx);
  if (!file) return file.error();
  const textures::TxInfo& info = (*file)->info();
  // 8-bit levels as they are; an HDR .tx's at the file's precision, as half floats.
  std::vector<std::vector<std::byte>> levels;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sizes;
  for (std::size_t l = 0; l < info.levels.size(); ++l) {
    sizes.emplace_back(info.levels[l].width, info.levels[l].height);
    if (!info.is_float) {
      auto rgba = (*file)->read_level_rgba8(l);
      if (!rgba) return rgba.error();
      const auto bytes = std::as_bytes(std::span(*rgba));
      levels.emplace_back(bytes.begin(), bytes.end());
      continue;
    }
    auto rgba = (*file)->read_level_rgba(l);
    if (!rgba) return rgba.error();
    std::vector<std::uint16_t> halves(rgba->size());
    for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = textures::float_to_half((*rgba)[i]);
    const auto bytes = std::as_bytes(std::span(halves));
    levels.emplace_back(bytes.begin(), bytes.end());
  }
  const VkFormat format = info.is_float                ? VK_FORMAT_R16G16B16A16_SFLOAT
                          : info.color_space == "sRGB" ? VK_FORMAT_R8G8B8A8_SRGB
                                                       : VK_FORMAT_R8G8B8A8_UNORM;
  std::unique_ptr<GpuTexture> self(new GpuTexture());
  self->device_ = context.device();
  self->shipped_format_ = info.is_float ? "rgba16f" : "rgba8";
  auto image = Image::create(context, {sizes[0].first, sizes[0].second, std::uint32_t(sizes.size()), format,
                                       VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT});
  if (!image) return make_error(name + ": " + image.error().message);
  self->image_ = std::move(*image);
  std::vector<std::span<const std::byte>> views(levels.begin(), levels.end());
  KILN_TRY(self->fill(context, views, sizes));
  auto sampler = make_sampler(self->device_, info, std::uint32_t(sizes.size()));
  if (!sampler) return sampler.error();
  self->sampler_ = *sampler;
  return self;
}

Result<std::unique_ptr<GpuTexture>> GpuTexture::solid(const VulkanContext& context, const std::uint8_t rgba[4]) {
  std::unique_ptr<GpuTexture> self(new GpuTexture());
  self->device_ = context.device();
  auto image = Image::create(
      context, {1, 1, 1, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT});
  if (!image) return image.error();
  self->image_ = std::move(*image);
  KILN_TRY(self->fill(context, {std::as_bytes(std::span(rgba, 4))}, {{1u, 1u}}));
  textures::TxInfo plain;
  plain.wrap_s = plain.wrap_t = textures::WrapMode::Periodic;
  auto sampler = make_sampler(self->device_, plain, 1);
  if (!sampler) return sampler.error();
  self->sampler_ = *sampler;
  return self;
}

GpuTexture::~GpuTexture() {
  if (sampler_) vkDestroySampler(device_, sampler_, nullptr);
}

}  // namespace kiln::render
