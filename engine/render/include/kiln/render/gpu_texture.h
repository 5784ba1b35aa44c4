#pragma once
// A cooked texture on the GPU: every mip level of the .tx, read tile by tile (RGBA8, premultiplied
// alpha: the tile cache's convention) into one image, sRGB-encoded formats for sRGB colour so the
// sampler decodes to linear, and a sampler that follows the texture's wrap modes and filter.
// A block-compressed record (kiln/textures/compressed_texture.h) uploads its levels as they are,
// its channel mapping on the view, when the device samples the format; otherwise it is refused
// naming the format and the device, or, when the caller allows it, decoded to RGBA8 on the CPU.
//
// Thread-safety: owned by one thread; the handles may be used from any thread.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/render/gpu_resources.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/textures/tx_file.h"

namespace kiln::render {

struct TextureUploadOptions {
  bool decode_unsupported = false;  // decode a format the device cannot sample instead of refusing it
};

class GpuTexture {
 public:
  // `tx` is the .tx in memory (a pack entry); `name` names it in errors.
  static Result<std::unique_ptr<GpuTexture>> upload(const VulkanContext& context, const std::string& name,
                                                    std::span<const std::byte> tx,
                                                    const TextureUploadOptions& options = {});
  // One texel of `rgba` (straight 8-bit values), linear filter, repeat: the stand-in for a slot a
  // material leaves empty (white for colour, a flat normal for normal maps).
  static Result<std::unique_ptr<GpuTexture>> solid(const VulkanContext& context, const std::uint8_t rgba[4]);
  ~GpuTexture();
  GpuTexture(const GpuTexture&) = delete;
  GpuTexture& operator=(const GpuTexture&) = delete;

  VkImageView view() const { return image_->view(); }
  VkSampler sampler() const { return sampler_; }
  // The format it shipped in ("bc7"), and whether it was decoded because the device cannot sample it.
  std::string_view shipped_format() const { return shipped_format_; }
  bool decoded() const { return decoded_; }
  std::uint32_t levels() const { return levels_; }  // mip levels uploaded

 private:
  GpuTexture() = default;
  static Result<std::unique_ptr<GpuTexture>> upload_compressed(const VulkanContext& context, const std::string& name,
                                                               std::span<const std::byte> bytes,
                                                               const TextureUploadOptions& options);
  Status fill(const VulkanContext& context, const std::vector<std::span<const std::byte>>& levels,
              const std::vector<std::pair<std::uint32_t, std::uint32_t>>& sizes);
  VkDevice device_ = VK_NULL_HANDLE;
  std::unique_ptr<Image> image_;
  VkSampler sampler_ = VK_NULL_HANDLE;
  std::string_view shipped_format_ = "rgba8";
  bool decoded_ = false;
  std::uint32_t levels_ = 0;
};

}  // namespace kiln::render
