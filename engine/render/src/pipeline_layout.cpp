#include "kiln/render/pipeline_layout.h"

#include "kiln/render/vulkan_context.h"

namespace kiln::render {

VkShaderStageFlags vk_stages(runtime::StageMask stages) {
  VkShaderStageFlags out = 0;
  if (stages & runtime::StageMask(runtime::ShaderStage::kVertex)) out |= VK_SHADER_STAGE_VERTEX_BIT;
  if (stages & runtime::StageMask(runtime::ShaderStage::kFragment)) out |= VK_SHADER_STAGE_FRAGMENT_BIT;
  if (stages & runtime::StageMask(runtime::ShaderStage::kCompute)) out |= VK_SHADER_STAGE_COMPUTE_BIT;
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
