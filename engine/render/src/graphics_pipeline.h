#pragma once
// How PipelineSet makes a graphics pipeline: whole, or (VK_EXT_graphics_pipeline_library) from its
// four parts — vertex input, pre-rasterisation shaders, fragment shader, fragment output — linked
// fast at once and linked again optimised later. Both ways take the same fixed-function state
// (pipeline_set.h says which).
//
// Thread-safety: pure functions of the device; the caller owns what they return.

#include <array>
#include <vector>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/render/pass_targets.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/vulkan_context.h"

namespace kiln::render {

// `feedback`: where the driver's creation feedback goes when the context offers it (else unused).
Result<MadePipeline> create_graphics_pipeline(const VulkanContext& context, const DeviceVariant& v,
                                              const PassTargets& targets, VkRenderPass pass, VkPipelineCache cache,
                                              bool fast_link, VkPipelineCreationFeedback* feedback);

// The parts of `fast` linked again with link-time optimisation.
Result<VkPipeline> link_optimised(const VulkanContext& context, const DeviceVariant& v, const MadePipeline& fast,
                                  VkPipelineCache cache);

void destroy_parts(VkDevice device, MadePipeline& made);

}  // namespace kiln::render
