#include "kiln/render/vulkan_context.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "kiln/core/sanitizers.h"

#if defined(KILN_ASAN)
#include <dlfcn.h>
#include <link.h>
#endif

namespace kiln::render {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

int type_rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

bool has_layer(const char* name) {
  std::uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(), [&](const auto& l) { return std::strcmp(l.layerName, name) == 0; });
}

bool has_device_extension(VkPhysicalDevice device, const char* name) {
  std::uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const auto& e) { return std::strcmp(e.extensionName, name) == 0; });
}

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// Under AddressSanitizer, the libraries the Vulkan loader opened (driver, layers, the driver's
// compiler) stay mapped after the instance is gone, so that LeakSanitizer's report at exit can name
// them: what a driver keeps for its process's life is then suppressed by library name
// (cmake/sanitizer_defaults.cpp) instead of failing every process that rendered.
void keep_loaded_libraries_mapped() {
#if defined(KILN_ASAN)
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void*) {
        if (info->dlpi_name && info->dlpi_name[0]) dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        return 0;
      },
      nullptr);
#endif
}

}  // namespace

const char* vk_result_name(VkResult result) {
  switch (result) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_INVALID_SHADER_NV: return "VK_ERROR_INVALID_SHADER_NV";
    default: return "VkResult error";
  }
}

VKAPI_ATTR VkBool32 VKAPI_CALL VulkanContext::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                         VkDebugUtilsMessageTypeFlagsEXT,
                                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void* self) {
  auto* context = static_cast<VulkanContext*>(self);
  const char* level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning";
  std::string line = std::string("validation ") + level + ": " + (data && data->pMessage ? data->pMessage : "");
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::lock_guard lock(context->messages_mu_);
  context->messages_.push_back(std::move(line));
  return VK_FALSE;
}

Result<std::unique_ptr<VulkanContext>> VulkanContext::create(const VulkanOptions& options, bool* unavailable) {
  if (unavailable) *unavailable = false;
  auto none = [&](const std::string& why) -> Result<std::unique_ptr<VulkanContext>> {
    if (unavailable) *unavailable = true;
    return make_error(why);
  };
  std::uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS || loader_version < VK_API_VERSION_1_1)
    return none("the Vulkan loader is older than 1.1");
  if (options.validate && !has_layer(kValidationLayer))
    return make_error(std::string(kValidationLayer) + " is not installed (Debian: vulkan-validationlayers)");

  std::unique_ptr<VulkanContext> self(new VulkanContext());
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "kiln";
  app.pEngineName = "kiln";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  const char* layers[] = {kValidationLayer};
  const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  VkDebugUtilsMessengerCreateInfoEXT messenger{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = &VulkanContext::on_message;
  messenger.pUserData = self.get();
  if (options.validate) {
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = extensions;
    info.pNext = &messenger;  // messages of instance creation itself
  }
  if (VkResult r = vkCreateInstance(&info, nullptr, &self->instance_); r != VK_SUCCESS) {
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
      return none(std::string("no Vulkan driver (") + vk_result_name(r) + ")");
    return make_error(std::string("cannot create a Vulkan instance: ") + vk_result_name(r));
  }
  if (options.validate) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(self->instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (!create_messenger || create_messenger(self->instance_, &messenger, nullptr, &self->messenger_) != VK_SUCCESS)
      return make_error("cannot install the validation message callback");
  }

  std::uint32_t count = 0;
  vkEnumeratePhysicalDevices(self->instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(self->instance_, &count, devices.data());
  std::string seen;
  int best_rank = 1 << 30;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    seen += (seen.empty() ? "" : ", ") + std::string(p.deviceName);
    if (p.apiVersion < VK_API_VERSION_1_1) continue;
    if (!options.device.empty() && lower(p.deviceName).find(lower(options.device)) == std::string::npos) continue;
    std::uint32_t families = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &families, nullptr);
    std::vector<VkQueueFamilyProperties> props(families);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &families, props.data());
    for (std::uint32_t f = 0; f < families; ++f) {
      const VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
      if ((props[f].queueFlags & need) != need) continue;
      if (type_rank(p.deviceType) < best_rank) {
        best_rank = type_rank(p.deviceType);
        self->physical_ = d;
        self->queue_family_ = f;
      }
      break;
    }
  }
  if (!self->physical_) {
    if (devices.empty()) return none("no Vulkan device");
    return none("no Vulkan 1.1 device with graphics and compute" +
                (options.device.empty() ? std::string() : " named like \"" + options.device + "\"") + " (there is " +
                seen + ")");
  }

  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(self->physical_, &p);
  DeviceIdentity& id = self->identity_;
  id.vendor_id = p.vendorID;
  id.device_id = p.deviceID;
  id.driver_version = p.driverVersion;
  id.api_version = p.apiVersion;
  std::memcpy(id.pipeline_cache_uuid.data(), p.pipelineCacheUUID, VK_UUID_SIZE);
  id.name = p.deviceName;
  if (p.apiVersion >= VK_API_VERSION_1_2) {
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &driver;
    vkGetPhysicalDeviceProperties2(self->physical_, &p2);
    id.driver = std::string(driver.driverName) + (driver.driverInfo[0] ? " " + std::string(driver.driverInfo) : "");
  }
  vkGetPhysicalDeviceMemoryProperties(self->physical_, &self->memory_);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = self->queue_family_;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  std::vector<const char*> device_extensions;
  // Kiln asks for Vulkan 1.1, so the 1.3 core version of the feedback does not count: the extension.
  self->creation_feedback_ = has_device_extension(self->physical_, VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME);
  if (self->creation_feedback_) device_extensions.push_back(VK_EXT_PIPELINE_CREATION_FEEDBACK_EXTENSION_NAME);
  // Pipelines of parts, linked fast while an optimised link waits (an editor's previews).
  VkPhysicalDeviceGraphicsPipelineLibraryFeaturesEXT library{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT};
  if (has_device_extension(self->physical_, VK_KHR_PIPELINE_LIBRARY_EXTENSION_NAME) &&
      has_device_extension(self->physical_, VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME)) {
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &library;
    vkGetPhysicalDeviceFeatures2(self->physical_, &features);
    self->graphics_pipeline_library_ = library.graphicsPipelineLibrary == VK_TRUE;
  }
  if (self->graphics_pipeline_library_) {
    device_extensions.push_back(VK_KHR_PIPELINE_LIBRARY_EXTENSION_NAME);
    device_extensions.push_back(VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME);
  }
  if (has_device_extension(self->physical_, VK_EXT_MESH_SHADER_EXTENSION_NAME)) {
    VkPhysicalDeviceMeshShaderFeaturesEXT mesh{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &mesh;
    vkGetPhysicalDeviceFeatures2(self->physical_, &features);
    self->mesh_shader_ = mesh.meshShader == VK_TRUE;
  }
  if (has_device_extension(self->physical_, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME) &&
      has_device_extension(self->physical_, VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME)) {
    VkPhysicalDeviceRayTracingPipelineFeaturesKHR ray{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &ray;
    vkGetPhysicalDeviceFeatures2(self->physical_, &features);
    self->ray_tracing_ = ray.rayTracingPipeline == VK_TRUE;
  }
  // The block-compressed texture formats the device samples, enabled so that a cooked set's BC or
  // ASTC textures upload as they are.
  VkPhysicalDeviceFeatures supported{};
  vkGetPhysicalDeviceFeatures(self->physical_, &supported);
  VkPhysicalDeviceFeatures enabled{};
  enabled.textureCompressionBC = supported.textureCompressionBC;
  enabled.textureCompressionASTC_LDR = supported.textureCompressionASTC_LDR;
  self->texture_compression_bc_ = supported.textureCompressionBC == VK_TRUE;
  self->texture_compression_astc_ = supported.textureCompressionASTC_LDR == VK_TRUE;
  VkDeviceCreateInfo device{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device.pEnabledFeatures = &enabled;
  if (self->graphics_pipeline_library_) device.pNext = &library;  // the feature, enabled
  device.queueCreateInfoCount = 1;
  device.pQueueCreateInfos = &queue;
  device.enabledExtensionCount = std::uint32_t(device_extensions.size());
  device.ppEnabledExtensionNames = device_extensions.data();
  if (VkResult r = vkCreateDevice(self->physical_, &device, nullptr, &self->device_); r != VK_SUCCESS)
    return make_error(std::string("cannot create the Vulkan device on ") + id.name + ": " + vk_result_name(r));
  vkGetDeviceQueue(self->device_, self->queue_family_, 0, &self->queue_);
  return self;
}

VulkanContext::~VulkanContext() {
  keep_loaded_libraries_mapped();
  if (device_) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

std::vector<std::string> VulkanContext::validation_messages() const {
  std::lock_guard lock(messages_mu_);
  return messages_;
}

Status check_validation(const VulkanContext& context, std::size_t seen) {
  const std::vector<std::string> messages = context.validation_messages();
  if (messages.size() <= seen) return {};
  const std::size_t fresh = messages.size() - seen;
  return make_error(std::to_string(fresh) +
                    (fresh == 1 ? " validation message: " : " validation messages; the first: ") + messages[seen]);
}

Result<std::uint32_t> VulkanContext::memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags properties) const {
  for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
    if ((type_bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & properties) == properties) return i;
  return make_error("no Vulkan memory type with the properties needed");
}

}  // namespace kiln::render
