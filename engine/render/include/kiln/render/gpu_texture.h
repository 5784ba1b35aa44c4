#pragma once
// A cooked texture on the GPU: every mip level of the .tx, read tile by tile (RGBA8, premultiplied
// alpha: the tile cache's convention) into one image, sRGB-encoded formats for sRGB colour so the
// sampler decodes to linear, and a sampler that follows the texture's wrap modes and filter.
//
// Thread-safety: owned by one thread; the handles may be used from any thread.

#include <memory>
#include <span>
#include <string>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/render/gpu_resources.h"
#include "kiln/render/vulkan_context.h"

namespace kiln::render {

class GpuTexture {
 public:
  // `tx` is the .tx in memory (a pack entry); `name` names it in errors.
  static Result<std::unique_ptr<GpuTexture>> upload(const VulkanContext& context, const std::string& name,
                                                    std::span<const std::byte> tx);
  // One texel of `rgba` (straight 8-bit values), linear filter, repeat: the stand-in for a slot a
  // material leaves empty (white for colour, a flat normal for normal maps).
  static Result<std::unique_ptr<GpuTexture>> solid(const VulkanContext& context, const std::uint8_t rgba[4]);
  ~GpuTexture();
  GpuTexture(const GpuTexture&) = delete;
  GpuTexture& operator=(const GpuTexture&) = delete;

  VkImageView view() const { return image_->view(); }
  VkSampler sampler() const { return sampler_; }

 private:
  GpuTexture() = default;
  VkDevice device_ = VK_NULL_HANDLE;
  std::unique_ptr<Image> image_;
  VkSampler sampler_ = VK_NULL_HANDLE;
};

}  // namespace kiln::render
