#include "graphics_pipeline.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kiln::render {
namespace {

struct VertexFormat {
  VkFormat format;
  std::uint32_t bytes;
};

std::optional<VertexFormat> vertex_format(const std::string& type) {
  static constexpr std::pair<std::string_view, VertexFormat> kFormats[] = {
      {"float", {VK_FORMAT_R32_SFLOAT, 4}},       {"vec2", {VK_FORMAT_R32G32_SFLOAT, 8}},
      {"vec3", {VK_FORMAT_R32G32B32_SFLOAT, 12}}, {"vec4", {VK_FORMAT_R32G32B32A32_SFLOAT, 16}},
      {"int", {VK_FORMAT_R32_SINT, 4}},           {"ivec2", {VK_FORMAT_R32G32_SINT, 8}},
      {"ivec3", {VK_FORMAT_R32G32B32_SINT, 12}},  {"ivec4", {VK_FORMAT_R32G32B32A32_SINT, 16}},
      {"uint", {VK_FORMAT_R32_UINT, 4}},          {"uvec2", {VK_FORMAT_R32G32_UINT, 8}},
      {"uvec3", {VK_FORMAT_R32G32B32_UINT, 12}},  {"uvec4", {VK_FORMAT_R32G32B32A32_UINT, 16}}};
  for (const auto& [name, format] : kFormats)
    if (name == type) return format;
  return std::nullopt;
}

// The fixed-function state of every graphics pipeline, its create-info structures pointing into
// it: made in place, never moved.
struct FixedState {
  std::vector<VkPipelineShaderStageCreateInfo> pre_raster, fragment;  // shader stages by part
  std::vector<VkVertexInputBindingDescription> bindings;
  std::vector<VkVertexInputAttributeDescription> attributes;
  VkPipelineVertexInputStateCreateInfo vertex{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  VkPipelineDepthStencilStateCreateInfo depth{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  VkPipelineColorBlendAttachmentState blend{};
  VkPipelineColorBlendStateCreateInfo color{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  VkDynamicState dynamic_states[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};

  FixedState() = default;
  FixedState(const FixedState&) = delete;
  FixedState& operator=(const FixedState&) = delete;

  Status fill(const DeviceVariant& v, const PassTargets& targets) {
    for (const StageModule& m : v.modules) {
      VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      s.stage = m.stage;
      s.module = m.module;
      s.pName = m.entry.c_str();  // lives as long as the variant, which outlives its pipelines
      (m.stage == VK_SHADER_STAGE_FRAGMENT_BIT ? fragment : pre_raster).push_back(s);
    }
    for (const runtime::VertexInput& in : v.interface.vertex_inputs) {
      const auto format = vertex_format(in.type);
      if (!format) return make_error("vertex input " + in.name + " of type " + in.type + " is not supported");
      const auto binding = std::uint32_t(bindings.size());
      bindings.push_back({binding, format->bytes, VK_VERTEX_INPUT_RATE_VERTEX});
      attributes.push_back({in.location, binding, format->format, 0});
    }
    vertex.vertexBindingDescriptionCount = std::uint32_t(bindings.size());
    vertex.pVertexBindingDescriptions = bindings.data();
    vertex.vertexAttributeDescriptionCount = std::uint32_t(attributes.size());
    vertex.pVertexAttributeDescriptions = attributes.data();
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    // The preview meshes are closed: their back faces are never seen, and a translucent material
    // would otherwise blend its far side in wherever it happened to be drawn first (streaks).
    raster.cullMode = VK_CULL_MODE_BACK_BIT;
    raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    raster.lineWidth = 1.0f;
    raster.depthBiasEnable = targets.depth_bias ? VK_TRUE : VK_FALSE;
    raster.depthBiasConstantFactor = 1.25f;
    raster.depthBiasSlopeFactor = 1.75f;
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    depth.depthTestEnable = VK_TRUE;
    depth.depthWriteEnable = VK_TRUE;
    depth.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
    blend.blendEnable = VK_TRUE;
    blend.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
    blend.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    blend.colorBlendOp = VK_BLEND_OP_ADD;
    blend.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    blend.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    blend.alphaBlendOp = VK_BLEND_OP_ADD;
    blend.colorWriteMask =
        VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    color.attachmentCount = targets.color != VK_FORMAT_UNDEFINED ? 1 : 0;
    color.pAttachments = &blend;
    dynamic.dynamicStateCount = 2;
    dynamic.pDynamicStates = dynamic_states;
    return {};
  }
};

Result<VkPipeline> create(const VulkanContext& context, VkPipelineCache cache, VkGraphicsPipelineCreateInfo& info,
                          VkPipelineCreationFeedback* feedback, std::size_t stage_count) {
  std::vector<VkPipelineCreationFeedback> per_stage(stage_count);
  VkPipelineCreationFeedbackCreateInfo asked{VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO};
  asked.pPipelineCreationFeedback = feedback;
  asked.pipelineStageCreationFeedbackCount = std::uint32_t(per_stage.size());
  asked.pPipelineStageCreationFeedbacks = per_stage.data();
  if (feedback && context.creation_feedback()) {
    asked.pNext = info.pNext;
    info.pNext = &asked;
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = vkCreateGraphicsPipelines(context.device(), cache, 1, &info, nullptr, &pipeline); r != VK_SUCCESS)
    return make_error(std::string("cannot create the graphics pipeline: ") + vk_result_name(r));
  return pipeline;
}

// One part of a pipeline library: `flags` says which.
Result<VkPipeline> create_part(const VulkanContext& context, VkPipelineCache cache, const FixedState& s,
                               const DeviceVariant& v, VkRenderPass pass, VkGraphicsPipelineLibraryFlagsEXT flags) {
  VkGraphicsPipelineLibraryCreateInfoEXT part{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT};
  part.flags = flags;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.pNext = &part;
  info.flags = VK_PIPELINE_CREATE_LIBRARY_BIT_KHR | VK_PIPELINE_CREATE_RETAIN_LINK_TIME_OPTIMIZATION_INFO_BIT_EXT;
  std::size_t stages = 0;
  switch (flags) {
    case VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT:
      info.pVertexInputState = &s.vertex;
      info.pInputAssemblyState = &s.assembly;
      break;
    case VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT:
      info.stageCount = std::uint32_t(stages = s.pre_raster.size());
      info.pStages = s.pre_raster.data();
      info.pViewportState = &s.viewport;
      info.pRasterizationState = &s.raster;
      info.pDynamicState = &s.dynamic;
      info.layout = v.layout->handle();
      info.renderPass = pass;
      break;
    case VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT:
      info.stageCount = std::uint32_t(stages = s.fragment.size());
      info.pStages = s.fragment.data();
      info.pDepthStencilState = &s.depth;
      info.pMultisampleState = &s.multisample;
      info.layout = v.layout->handle();
      info.renderPass = pass;
      break;
    default:  // fragment output
      info.pColorBlendState = &s.color;
      info.pMultisampleState = &s.multisample;
      info.renderPass = pass;
      break;
  }
  return create(context, cache, info, nullptr, stages);
}

Result<VkPipeline> link(const VulkanContext& context, VkPipelineCache cache, const DeviceVariant& v,
                        const std::array<VkPipeline, 4>& parts, bool optimised, VkPipelineCreationFeedback* feedback) {
  VkPipelineLibraryCreateInfoKHR libraries{VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR};
  libraries.libraryCount = std::uint32_t(parts.size());
  libraries.pLibraries = parts.data();
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.pNext = &libraries;
  info.flags = optimised ? VK_PIPELINE_CREATE_LINK_TIME_OPTIMIZATION_BIT_EXT : 0;
  info.layout = v.layout->handle();
  return create(context, cache, info, feedback, 0);
}

}  // namespace

void destroy_parts(VkDevice device, MadePipeline& made) {
  for (VkPipeline& part : made.parts)
    if (part) vkDestroyPipeline(device, part, nullptr), part = VK_NULL_HANDLE;
}

Result<MadePipeline> create_graphics_pipeline(const VulkanContext& context, const DeviceVariant& v,
                                              const PassTargets& targets, VkRenderPass pass, VkPipelineCache cache,
                                              bool fast_link, VkPipelineCreationFeedback* feedback) {
  FixedState s;
  KILN_TRY(s.fill(v, targets));
  MadePipeline made;
  if (!fast_link || !context.graphics_pipeline_library()) {
    std::vector<VkPipelineShaderStageCreateInfo> stages = s.pre_raster;
    stages.insert(stages.end(), s.fragment.begin(), s.fragment.end());
    VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    info.stageCount = std::uint32_t(stages.size());
    info.pStages = stages.data();
    info.pVertexInputState = &s.vertex;
    info.pInputAssemblyState = &s.assembly;
    info.pViewportState = &s.viewport;
    info.pRasterizationState = &s.raster;
    info.pMultisampleState = &s.multisample;
    info.pDepthStencilState = &s.depth;
    info.pColorBlendState = &s.color;
    info.pDynamicState = &s.dynamic;
    info.layout = v.layout->handle();
    info.renderPass = pass;
    auto pipeline = create(context, cache, info, feedback, stages.size());
    if (!pipeline) return pipeline.error();
    made.pipeline = *pipeline;
    return made;
  }
  constexpr VkGraphicsPipelineLibraryFlagsEXT kParts[4] = {
      VK_GRAPHICS_PIPELINE_LIBRARY_VERTEX_INPUT_INTERFACE_BIT_EXT,
      VK_GRAPHICS_PIPELINE_LIBRARY_PRE_RASTERIZATION_SHADERS_BIT_EXT,
      VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_SHADER_BIT_EXT,
      VK_GRAPHICS_PIPELINE_LIBRARY_FRAGMENT_OUTPUT_INTERFACE_BIT_EXT};
  for (std::size_t i = 0; i < 4; ++i) {
    auto part = create_part(context, cache, s, v, pass, kParts[i]);
    if (!part) {
      destroy_parts(context.device(), made);
      return part.error();
    }
    made.parts[i] = *part;
  }
  auto linked = link(context, cache, v, made.parts, false, feedback);
  if (!linked) {
    destroy_parts(context.device(), made);
    return linked.error();
  }
  made.pipeline = *linked;
  return made;
}

Result<VkPipeline> link_optimised(const VulkanContext& context, const DeviceVariant& v, const MadePipeline& fast,
                                  VkPipelineCache cache) {
  return link(context, cache, v, fast.parts, true, nullptr);
}

}  // namespace kiln::render
