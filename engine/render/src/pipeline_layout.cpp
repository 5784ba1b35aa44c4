#include "kiln/render/pipeline_layout.h"

#include "kiln/render/vulkan_context.h"

namespace kiln::render {

VkShaderStageFlagBits vk_stage(runtime::ShaderStage stage) {
  using S = runtime::ShaderStage;
  switch (stage) {
    case S::kVertex: return VK_SHADER_STAGE_VERTEX_BIT;
    case S::kTessControl: return VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
    case S::kTessEval: return VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT;
    case S::kGeometry: return VK_SHADER_STAGE_GEOMETRY_BIT;
    case S::kTask: return VK_SHADER_STAGE_TASK_BIT_EXT;
    case S::kMesh: return VK_SHADER_STAGE_MESH_BIT_EXT;
    case S::kFragment: return VK_SHADER_STAGE_FRAGMENT_BIT;
    case S::kCompute: return VK_SHADER_STAGE_COMPUTE_BIT;
    case S::kRayGen: return VK_SHADER_STAGE_RAYGEN_BIT_KHR;
    case S::kIntersection: return VK_SHADER_STAGE_INTERSECTION_BIT_KHR;
    case S::kAnyHit: return VK_SHADER_STAGE_ANY_HIT_BIT_KHR;
    case S::kClosestHit: return VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR;
    case S::kMiss: return VK_SHADER_STAGE_MISS_BIT_KHR;
    case S::kCallable: return VK_SHADER_STAGE_CALLABLE_BIT_KHR;
  }
  return VK_SHADER_STAGE_ALL;
}

VkShaderStageFlags vk_stages(runtime::StageMask stages) {
  VkShaderStageFlags out = 0;
  for (std::size_t s = 0; s < runtime::kShaderStageCount; ++s)
    if (stages & runtime::stage_bit(runtime::ShaderStage(s))) out |= vk_stage(runtime::ShaderStage(s));
  return out;
}

VkDescriptorType vk_descriptor_type(runtime::DescriptorKind kind) {
  switch (kind) {
    case runtime::DescriptorKind::kUniformBuffer: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case runtime::DescriptorKind::kStorageBuffer: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case runtime::DescriptorKind::kCombinedImageSampler: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    case runtime::DescriptorKind::kSampledImage: return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case runtime::DescriptorKind::kSampler: return VK_DESCRIPTOR_TYPE_SAMPLER;
    case runtime::DescriptorKind::kStorageImage: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case runtime::DescriptorKind::kInputAttachment: return VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
    case runtime::DescriptorKind::kAccelerationStructure: return VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
  }
  return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
}

Result<std::unique_ptr<PipelineLayout>> PipelineLayout::create(VkDevice device,
                                                               const runtime::ShaderInterface& interface) {
  std::unique_ptr<PipelineLayout> self(new PipelineLayout());
  self->device_ = device;
  for (std::uint32_t set = 0; set < interface.set_count; ++set) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const runtime::DescriptorBinding& d : interface.bindings)
      if (d.set == set)
        bindings.push_back({d.binding, vk_descriptor_type(d.kind), d.count, vk_stages(d.stages), nullptr});
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = std::uint32_t(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    if (VkResult r = vkCreateDescriptorSetLayout(device, &info, nullptr, &layout); r != VK_SUCCESS)
      return make_error(std::string("cannot create descriptor set layout ") + std::to_string(set) + ": " +
                        vk_result_name(r));
    self->sets_.push_back(layout);
  }
  VkPushConstantRange range{vk_stages(interface.push_constant_stages), 0, interface.push_constant_size};
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = std::uint32_t(self->sets_.size());
  info.pSetLayouts = self->sets_.data();
  info.pushConstantRangeCount = interface.push_constant_size > 0 ? 1 : 0;
  info.pPushConstantRanges = &range;
  if (VkResult r = vkCreatePipelineLayout(device, &info, nullptr, &self->layout_); r != VK_SUCCESS)
    return make_error(std::string("cannot create a pipeline layout: ") + vk_result_name(r));
  return self;
}

PipelineLayout::~PipelineLayout() {
  if (layout_) vkDestroyPipelineLayout(device_, layout_, nullptr);
  for (VkDescriptorSetLayout s : sets_) vkDestroyDescriptorSetLayout(device_, s, nullptr);
}

}  // namespace kiln::render
