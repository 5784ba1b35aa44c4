#include "kiln/render/gpu_resources.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace kiln::render {

Result<std::unique_ptr<Buffer>> Buffer::create(const VulkanContext& context, VkDeviceSize size,
                                               VkBufferUsageFlags usage) {
  std::unique_ptr<Buffer> self(new Buffer());
  self->device_ = context.device();
  self->size_ = size;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vkCreateBuffer(self->device_, &info, nullptr, &self->buffer_); r != VK_SUCCESS)
    return make_error(std::string("cannot create a buffer: ") + vk_result_name(r));
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(self->device_, self->buffer_, &needs);
  auto type = context.memory_type(needs.memoryTypeBits,
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (!type) return type.error();
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = *type;
  if (VkResult r = vkAllocateMemory(self->device_, &alloc, nullptr, &self->memory_); r != VK_SUCCESS)
    return make_error(std::string("cannot allocate buffer memory: ") + vk_result_name(r));
  vkBindBufferMemory(self->device_, self->buffer_, self->memory_, 0);
  void* mapped = nullptr;
  if (VkResult r = vkMapMemory(self->device_, self->memory_, 0, VK_WHOLE_SIZE, 0, &mapped); r != VK_SUCCESS)
    return make_error(std::string("cannot map buffer memory: ") + vk_result_name(r));
  self->mapped_ = static_cast<std::byte*>(mapped);
  std::memset(self->mapped_, 0, size);
  return self;
}

Buffer::~Buffer() {
  if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps
}

void Buffer::write(std::span<const std::byte> bytes, VkDeviceSize offset) {
  if (offset > size_) return;
  std::memcpy(mapped_ + offset, bytes.data(), std::min<VkDeviceSize>(bytes.size(), size_ - offset));
}

Result<std::unique_ptr<Image>> Image::create(const VulkanContext& context, const ImageDesc& desc) {
  // What the device can hold is asked before anything reaches the driver: an image past its limits
  // is undefined behaviour there (lavapipe crashes on a 65536x1 one), here an error.
  VkPhysicalDeviceProperties device{};
  vkGetPhysicalDeviceProperties(context.physical_device(), &device);
  VkImageFormatProperties can{};
  const VkResult supported = vkGetPhysicalDeviceImageFormatProperties(
      context.physical_device(), desc.format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, desc.usage, 0, &can);
  if (supported == VK_ERROR_FORMAT_NOT_SUPPORTED)
    return make_error("this device has no images of VkFormat " + std::to_string(int(desc.format)) + " for this use");
  if (supported != VK_SUCCESS)
    return make_error(std::string("cannot ask the device about images: ") + vk_result_name(supported));
  const std::uint32_t max_side =
      std::min({device.limits.maxImageDimension2D, can.maxExtent.width, can.maxExtent.height});
  if (desc.width == 0 || desc.height == 0 ||
      desc.width > std::min(device.limits.maxImageDimension2D, can.maxExtent.width) ||
      desc.height > std::min(device.limits.maxImageDimension2D, can.maxExtent.height) ||
      desc.mip_levels > can.maxMipLevels)
    return make_error(std::to_string(desc.width) + "x" + std::to_string(desc.height) + " with " +
                      std::to_string(desc.mip_levels) + " levels is more than this device's images hold (at most " +
                      std::to_string(max_side) + " pixels per side, " + std::to_string(can.maxMipLevels) +
                      " levels); cook it smaller");
  std::unique_ptr<Image> self(new Image());
  self->device_ = context.device();
  self->desc_ = desc;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = desc.format;
  info.extent = {desc.width, desc.height, 1};
  info.mipLevels = desc.mip_levels;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = desc.usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  if (VkResult r = vkCreateImage(self->device_, &info, nullptr, &self->image_); r != VK_SUCCESS)
    return make_error(std::string("cannot create an image: ") + vk_result_name(r));
  VkMemoryRequirements needs;
  vkGetImageMemoryRequirements(self->device_, self->image_, &needs);
  auto type = context.memory_type(needs.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (!type) return type.error();
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = *type;
  if (VkResult r = vkAllocateMemory(self->device_, &alloc, nullptr, &self->memory_); r != VK_SUCCESS)
    return make_error(std::string("cannot allocate image memory: ") + vk_result_name(r));
  vkBindImageMemory(self->device_, self->image_, self->memory_, 0);
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = self->image_;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = desc.format;
  view.components = {desc.components[0], desc.components[1], desc.components[2], desc.components[3]};
  view.subresourceRange = {desc.aspect, 0, desc.mip_levels, 0, 1};
  if (VkResult r = vkCreateImageView(self->device_, &view, nullptr, &self->view_); r != VK_SUCCESS)
    return make_error(std::string("cannot create an image view: ") + vk_result_name(r));
  return self;
}

Image::~Image() {
  if (view_) vkDestroyImageView(device_, view_, nullptr);
  if (image_) vkDestroyImage(device_, image_, nullptr);
  if (memory_) vkFreeMemory(device_, memory_, nullptr);
}

Status submit_and_wait(const VulkanContext& context, const std::function<void(VkCommandBuffer)>& record) {
  const VkDevice device = context.device();
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool_info.queueFamilyIndex = context.queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  if (VkResult r = vkCreateCommandPool(device, &pool_info, nullptr, &pool); r != VK_SUCCESS)
    return make_error(std::string("cannot create a command pool: ") + vk_result_name(r));
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  vkAllocateCommandBuffers(device, &alloc, &cmd);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cmd, &begin);
  record(cmd);
  vkEndCommandBuffer(cmd);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  vkCreateFence(device, &fence_info, nullptr, &fence);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VkResult r = vkQueueSubmit(context.queue(), 1, &submit, fence);
  if (r == VK_SUCCESS) r = vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
  vkDestroyFence(device, fence, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  if (r != VK_SUCCESS) return make_error(std::string("GPU work failed: ") + vk_result_name(r));
  return {};
}

void transition(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, std::uint32_t mip_levels,
                VkImageLayout from, VkImageLayout to) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.oldLayout = from;
  barrier.newLayout = to;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image;
  barrier.subresourceRange = {aspect, 0, mip_levels, 0, 1};
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &barrier);
}

}  // namespace kiln::render
