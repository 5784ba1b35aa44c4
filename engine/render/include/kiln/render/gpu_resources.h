#pragma once
// Buffers and images with their own memory, and one-off command submission. Buffers live in
// host-visible, coherent memory (written in place: parameter blocks, meshes, read-back); images in
// device-local memory, filled through a staging buffer. One allocation per resource: a preview
// scene has tens of them, far from any driver's allocation limit.
//
// Thread-safety: each object is owned by one thread; submit_and_wait() uses the context's queue
// (one submitting thread at a time).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/render/vulkan_context.h"

namespace kiln::render {

class Buffer {
 public:
  static Result<std::unique_ptr<Buffer>> create(const VulkanContext& context, VkDeviceSize size,
                                                VkBufferUsageFlags usage);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  std::byte* data() { return mapped_; }  // mapped for the buffer's life
  const std::byte* data() const { return mapped_; }
  void write(std::span<const std::byte> bytes, VkDeviceSize offset = 0);

 private:
  Buffer() = default;
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  std::byte* mapped_ = nullptr;
};

struct ImageDesc {
  std::uint32_t width = 1, height = 1, mip_levels = 1;
  VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
  VkImageUsageFlags usage = 0;
  VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
  // The view's channel mapping (a block format's: BC4 gray as R R R 1, BC5 normals as R G 0 1).
  VkComponentSwizzle components[4] = {VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY,
                                      VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY};
};

class Image {
 public:
  static Result<std::unique_ptr<Image>> create(const VulkanContext& context, const ImageDesc& desc);
  ~Image();
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  VkImage handle() const { return image_; }
  VkImageView view() const { return view_; }
  const ImageDesc& desc() const { return desc_; }

 private:
  Image() = default;
  VkDevice device_ = VK_NULL_HANDLE;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  ImageDesc desc_;
};

// Records `record` into a fresh command buffer, submits it and waits for it to finish.
Status submit_and_wait(const VulkanContext& context, const std::function<void(VkCommandBuffer)>& record);

// A layout transition of every mip level of `image` (full pipeline barrier: for set-up and
// read-back, not per-draw use).
void transition(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, std::uint32_t mip_levels,
                VkImageLayout from, VkImageLayout to);

}  // namespace kiln::render
