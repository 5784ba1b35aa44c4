#pragma once
// The descriptor set layouts and pipeline layout of a shader interface: one set layout per set
// number up to the highest used (an unused set gets an empty layout, as Vulkan requires the
// numbering to be dense), each binding with the stages that use it, and one push-constant range.
//
// Thread-safety: owned by one thread; the handles may be used from any thread.

#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/runtime/shader_interface.h"

namespace kiln::render {

VkShaderStageFlagBits vk_stage(runtime::ShaderStage stage);
VkShaderStageFlags vk_stages(runtime::StageMask stages);
VkDescriptorType vk_descriptor_type(runtime::DescriptorKind kind);

class PipelineLayout {
 public:
  static Result<std::unique_ptr<PipelineLayout>> create(VkDevice device, const runtime::ShaderInterface& interface);
  ~PipelineLayout();
  PipelineLayout(const PipelineLayout&) = delete;
  PipelineLayout& operator=(const PipelineLayout&) = delete;

  VkPipelineLayout handle() const { return layout_; }
  const std::vector<VkDescriptorSetLayout>& set_layouts() const { return sets_; }

 private:
  PipelineLayout() = default;
  VkDevice device_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> sets_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
};

}  // namespace kiln::render
