#pragma once
// The Vulkan instance, the device Kiln renders with and its one queue (graphics and compute).
// Headless: no surface, no swapchain; every frame goes to offscreen images.
//
// The device is chosen by render.device (part of its name, case-insensitive), else the first
// discrete GPU, else an integrated one, else any (Mesa's lavapipe, "llvmpipe", a CPU device, is
// what tests select by name, so that a machine with a GPU tests the same path). Vulkan 1.1 or newer.
// With `validate`, VK_LAYER_KHRONOS_validation is enabled and every message it prints is kept:
// callers fail on any.
//
// Thread-safety: created and destroyed by one thread; the handles may be used from any thread as
// Vulkan allows (the queue is externally synchronised: one submitting thread). validation_messages()
// from any thread.

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"

namespace kiln::render {

struct VulkanOptions {
  std::string device;     // part of a device name; empty: the best device
  bool validate = false;  // VK_LAYER_KHRONOS_validation, messages kept
};

// What a driver's pipeline cache data is valid for: the header Vulkan puts in front of it, and the
// driver version, which the header does not carry.
struct DeviceIdentity {
  std::uint32_t vendor_id = 0, device_id = 0, driver_version = 0, api_version = 0;
  std::array<std::uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{};
  std::string name;    // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string driver;  // "llvmpipe", "Mesa 22.3.6 ..." when the driver says
};

class VulkanContext {
 public:
  // Fails with a one-line reason. `unavailable` (when given) is set when the reason is that this
  // machine has no usable Vulkan (no driver, no device, none matching render.device): a caller may
  // then carry on without rendering.
  static Result<std::unique_ptr<VulkanContext>> create(const VulkanOptions& options, bool* unavailable = nullptr);
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  std::uint32_t queue_family() const { return queue_family_; }
  const DeviceIdentity& identity() const { return identity_; }
  // VK_EXT_pipeline_creation_feedback is enabled: pipelines can report the driver's own cache hits.
  bool creation_feedback() const { return creation_feedback_; }
  // VK_EXT_graphics_pipeline_library is enabled: a graphics pipeline can be made of four parts and
  // linked fast, then linked again optimised (pipeline_set.h).
  bool graphics_pipeline_library() const { return graphics_pipeline_library_; }
  // The device samples BC1-BC7 (textureCompressionBC) or ASTC LDR blocks, and they are enabled.
  bool texture_compression_bc() const { return texture_compression_bc_; }
  bool texture_compression_astc() const { return texture_compression_astc_; }
  // The device offers these pipelines (its extensions and features; not enabled: Kiln's renderer
  // does not build them).
  bool mesh_shader() const { return mesh_shader_; }
  bool ray_tracing() const { return ray_tracing_; }
  bool validating() const { return messenger_ != VK_NULL_HANDLE; }

  // Messages of the validation layer so far (warnings and errors), one line each.
  std::vector<std::string> validation_messages() const;
  // Memory of `requirements` with `properties` (host-visible, device-local...): its type index.
  Result<std::uint32_t> memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags properties) const;

 private:
  VulkanContext() = default;
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* self);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::uint32_t queue_family_ = 0;
  DeviceIdentity identity_;
  bool creation_feedback_ = false;
  bool graphics_pipeline_library_ = false;
  bool texture_compression_bc_ = false, texture_compression_astc_ = false;
  bool mesh_shader_ = false, ray_tracing_ = false;
  VkPhysicalDeviceMemoryProperties memory_{};
  mutable std::mutex messages_mu_;
  std::vector<std::string> messages_;
};

// "VkResult name" for messages.
const char* vk_result_name(VkResult result);

// An error when the validation layer printed any message after the first `seen` ("2 validation
// messages; the first: ..."); success otherwise, and always without the layer.
Status check_validation(const VulkanContext& context, std::size_t seen = 0);

}  // namespace kiln::render
