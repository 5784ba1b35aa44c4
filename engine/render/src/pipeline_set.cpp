#include "kiln/render/pipeline_set.h"

#include "kiln/cache/hash.h"

#include <chrono>
#include <span>
#include <optional>

namespace kiln::render {
namespace {

struct VertexFormat {
  VkFormat format;
  std::uint32_t bytes;
};

std::optional<VertexFormat> vertex_format(const std::string& type) {
  if (type == "float") return VertexFormat{VK_FORMAT_R32_SFLOAT, 4};
  if (type == "vec2") return VertexFormat{VK_FORMAT_R32G32_SFLOAT, 8};
  if (type == "vec3") return VertexFormat{VK_FORMAT_R32G32B32_SFLOAT, 12};
  if (type == "vec4") return VertexFormat{VK_FORMAT_R32G32B32A32_SFLOAT, 16};
  if (type == "int") return VertexFormat{VK_FORMAT_R32_SINT, 4};
  if (type == "ivec2") return VertexFormat{VK_FORMAT_R32G32_SINT, 8};
  if (type == "ivec3") return VertexFormat{VK_FORMAT_R32G32B32_SINT, 12};
  if (type == "ivec4") return VertexFormat{VK_FORMAT_R32G32B32A32_SINT, 16};
  if (type == "uint") return VertexFormat{VK_FORMAT_R32_UINT, 4};
  if (type == "uvec2") return VertexFormat{VK_FORMAT_R32G32_UINT, 8};
  if (type == "uvec3") return VertexFormat{VK_FORMAT_R32G32B32_UINT, 12};
  if (type == "uvec4") return VertexFormat{VK_FORMAT_R32G32B32A32_UINT, 16};
  return std::nullopt;
}

std::optional<VkShaderStageFlagBits> vk_stage(const std::string& stage) {
  if (stage == "vert") return VK_SHADER_STAGE_VERTEX_BIT;
  if (stage == "frag") return VK_SHADER_STAGE_FRAGMENT_BIT;
  if (stage == "comp") return VK_SHADER_STAGE_COMPUTE_BIT;
  return std::nullopt;
}

}  // namespace

PipelineSet::PipelineSet(const VulkanContext& context, VkPipelineCache cache)
    : context_(context), cache_(cache), render_passes_(std::make_unique<RenderPasses>(context.device())) {}

PipelineSet::~PipelineSet() { destroy(current_); }

void PipelineSet::destroy(Made& made) {
  const VkDevice device = context_.device();
  for (auto& [key, pipeline] : made.pipelines) vkDestroyPipeline(device, pipeline, nullptr);
  for (auto& [key, v] : made.variants)
    for (auto& [stage, module] : v->modules) vkDestroyShaderModule(device, module, nullptr);
  made.pipelines.clear();
  made.variants.clear();
}

const MaterialPipeline* PipelineSet::find(std::string_view material, std::string_view pass) const {
  for (const auto& p : pipelines_)
    if (p.material == material && p.pass == pass) return &p;
  return nullptr;
}

Result<const DeviceVariant*> PipelineSet::device_variant(const SceneSource& source, const std::string& name,
                                                         Update& update) {
  const std::string where = source.shaders_origin() + ": " + name;
  auto record = source.variant(name);
  if (!record) return record.error();
  std::uint64_t digest = 0;
  for (const runtime::StageRecord& s : record->stages)
    digest = cache::xxh3_64(
        {std::as_bytes(std::span(&digest, 1)), std::as_bytes(std::span(s.stage)), std::as_bytes(std::span(s.spirv))});
  const VariantKey key{name, digest};
  if (auto it = current_.variants.find(key); it != current_.variants.end()) {
    update.kept_variants.insert(key);
    return it->second.get();
  }
  if (auto it = update.fresh.variants.find(key); it != update.fresh.variants.end()) return it->second.get();
  auto v = std::make_unique<DeviceVariant>();
  v->name = name;
  v->digest = digest;
  auto interface = runtime::shader_interface(*record, where);
  if (!interface) return interface.error();
  v->interface = std::move(*interface);
  auto layout = PipelineLayout::create(context_.device(), v->interface);
  if (!layout) return make_error(where + ": " + layout.error().message);
  v->layout = std::move(*layout);
  auto* raw = v.get();
  update.fresh.variants.emplace(key, std::move(v));  // owned from here: its modules go with the update
  for (const runtime::StageRecord& s : record->stages) {
    const auto stage = vk_stage(s.stage);
    if (!stage) return make_error(where + ": stage " + s.stage + " is not supported");
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = s.spirv.size() * sizeof(std::uint32_t);
    info.pCode = s.spirv.data();
    VkShaderModule module = VK_NULL_HANDLE;
    if (VkResult r = vkCreateShaderModule(context_.device(), &info, nullptr, &module); r != VK_SUCCESS)
      return make_error(where + ": " + s.stage + ": cannot create a shader module: " + vk_result_name(r));
    raw->modules.emplace_back(*stage, module);
  }
  return raw;
}

void PipelineSet::count_feedback(const VkPipelineCreationFeedback& feedback) {
  if (!(feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT)) return;
  stats_.feedback = true;
  if (feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT) ++stats_.driver_cache_hits;
}

Result<VkPipeline> PipelineSet::create_graphics(const DeviceVariant& v, const PassTargets& targets, VkRenderPass pass) {
  std::vector<VkPipelineShaderStageCreateInfo> stages;
  for (const auto& [stage, module] : v.modules) {
    VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    s.stage = stage;
    s.module = module;
    s.pName = "main";
    stages.push_back(s);
  }
  std::vector<VkVertexInputBindingDescription> bindings;
  std::vector<VkVertexInputAttributeDescription> attributes;
  for (const runtime::VertexInput& in : v.interface.vertex_inputs) {
    const auto format = vertex_format(in.type);
    if (!format) return make_error("vertex input " + in.name + " of type " + in.type + " is not supported");
    const auto binding = std::uint32_t(bindings.size());
    bindings.push_back({binding, format->bytes, VK_VERTEX_INPUT_RATE_VERTEX});
    attributes.push_back({in.location, binding, format->format, 0});
  }
  VkPipelineVertexInputStateCreateInfo vertex{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vertex.vertexBindingDescriptionCount = std::uint32_t(bindings.size());
  vertex.pVertexBindingDescriptions = bindings.data();
  vertex.vertexAttributeDescriptionCount = std::uint32_t(attributes.size());
  vertex.pVertexAttributeDescriptions = attributes.data();
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  // The preview meshes are closed: their back faces are never seen, and a translucent material
  // would otherwise blend its far side in wherever it happened to be drawn first (streaks).
  raster.cullMode = VK_CULL_MODE_BACK_BIT;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  raster.depthBiasEnable = targets.depth_bias ? VK_TRUE : VK_FALSE;
  raster.depthBiasConstantFactor = 1.25f;
  raster.depthBiasSlopeFactor = 1.75f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo depth{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depth.depthTestEnable = VK_TRUE;
  depth.depthWriteEnable = VK_TRUE;
  depth.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkPipelineColorBlendAttachmentState blend{};
  blend.blendEnable = VK_TRUE;
  blend.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
  blend.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  blend.colorBlendOp = VK_BLEND_OP_ADD;
  blend.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
  blend.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
  blend.alphaBlendOp = VK_BLEND_OP_ADD;
  blend.colorWriteMask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo color{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  color.attachmentCount = targets.color != VK_FORMAT_UNDEFINED ? 1 : 0;
  color.pAttachments = &blend;
  const VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic.dynamicStateCount = 2;
  dynamic.pDynamicStates = dynamic_states;

  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = std::uint32_t(stages.size());
  info.pStages = stages.data();
  info.pVertexInputState = &vertex;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pDepthStencilState = &depth;
  info.pColorBlendState = &color;
  info.pDynamicState = &dynamic;
  info.layout = v.layout->handle();
  info.renderPass = pass;
  VkPipelineCreationFeedback whole{};
  std::vector<VkPipelineCreationFeedback> per_stage(stages.size());
  VkPipelineCreationFeedbackCreateInfo feedback{VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO};
  feedback.pPipelineCreationFeedback = &whole;
  feedback.pipelineStageCreationFeedbackCount = std::uint32_t(per_stage.size());
  feedback.pPipelineStageCreationFeedbacks = per_stage.data();
  if (context_.creation_feedback()) info.pNext = &feedback;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = vkCreateGraphicsPipelines(context_.device(), cache_, 1, &info, nullptr, &pipeline); r != VK_SUCCESS)
    return make_error(std::string("cannot create the graphics pipeline: ") + vk_result_name(r));
  if (context_.creation_feedback()) count_feedback(whole);
  ++stats_.graphics;
  return pipeline;
}

Result<VkPipeline> PipelineSet::create_compute(const DeviceVariant& v) {
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = v.modules.at(0).second;
  info.stage.pName = "main";
  info.layout = v.layout->handle();
  VkPipelineCreationFeedback whole{}, stage{};
  VkPipelineCreationFeedbackCreateInfo feedback{VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO};
  feedback.pPipelineCreationFeedback = &whole;
  feedback.pipelineStageCreationFeedbackCount = 1;
  feedback.pPipelineStageCreationFeedbacks = &stage;
  if (context_.creation_feedback()) info.pNext = &feedback;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = vkCreateComputePipelines(context_.device(), cache_, 1, &info, nullptr, &pipeline); r != VK_SUCCESS)
    return make_error(std::string("cannot create the compute pipeline: ") + vk_result_name(r));
  if (context_.creation_feedback()) count_feedback(whole);
  ++stats_.compute;
  return pipeline;
}

std::unique_ptr<PipelineSet> PipelineSet::create(const VulkanContext& context, VkPipelineCache cache) {
  return std::unique_ptr<PipelineSet>(new PipelineSet(context, cache));
}

Result<std::unique_ptr<PipelineSet>> PipelineSet::build(const VulkanContext& context, const SceneSource& source,
                                                        VkPipelineCache cache) {
  auto self = create(context, cache);
  KILN_TRY(self->update(source));
  return self;
}

Result<VkPipeline> PipelineSet::pipeline(const PipelineKey& key, const MaterialPipeline& p, const std::string& where,
                                         Update& update) {
  if (auto it = current_.pipelines.find(key); it != current_.pipelines.end()) {
    if (update.kept_pipelines.insert(key).second) ++stats_.reused;
    return it->second;
  }
  if (auto it = update.fresh.pipelines.find(key); it != update.fresh.pipelines.end()) return it->second;
  auto created = p.bind_point == VK_PIPELINE_BIND_POINT_COMPUTE ? create_compute(*p.shaders)
                                                                : create_graphics(*p.shaders, p.targets, p.render_pass);
  if (!created) return make_error(where + ": " + created.error().message);
  update.fresh.pipelines.emplace(key, *created);
  return *created;
}

Status PipelineSet::update(const SceneSource& source) {
  const auto t0 = std::chrono::steady_clock::now();
  stats_ = {};
  Update update;
  std::vector<MaterialPipeline> pipelines;
  auto fail = [&](const Error& error) {
    destroy(update.fresh);  // the set stays as it was
    return Status(error);
  };
  for (const std::string& file : source.materials()) {
    auto material = source.material(file);
    if (!material) return fail(material.error());
    for (const runtime::MaterialPass& pass : material->passes) {
      const std::string where =
          source.shaders_origin() + ": " + file + " pass " + pass.pass + " (" + pass.variant + ")";
      auto v = device_variant(source, pass.variant, update);
      if (!v) return fail(v.error());
      MaterialPipeline p{file, pass.pass, pass.variant};
      p.shaders = *v;
      if ((*v)->interface.compute) {
        p.bind_point = VK_PIPELINE_BIND_POINT_COMPUTE;
      } else {
        p.targets = pass_targets(pass.pass, (*v)->interface);
        auto render_pass = render_passes_->get(p.targets);
        if (!render_pass) return fail(make_error(where + ": " + render_pass.error().message));
        p.render_pass = *render_pass;
      }
      auto made = pipeline({{(*v)->name, (*v)->digest}, pass.pass}, p, where, update);
      if (!made) return fail(made.error());
      p.pipeline = *made;
      pipelines.push_back(std::move(p));
    }
  }
  // What no material uses any more goes; what this update made joins what it kept.
  Made stale;
  for (auto it = current_.variants.begin(); it != current_.variants.end();)
    if (update.kept_variants.count(it->first)) {
      ++it;
    } else {
      stale.variants.insert(current_.variants.extract(it++));
    }
  for (auto it = current_.pipelines.begin(); it != current_.pipelines.end();)
    if (update.kept_pipelines.count(it->first)) {
      ++it;
    } else {
      stale.pipelines.insert(current_.pipelines.extract(it++));
    }
  destroy(stale);
  current_.variants.merge(update.fresh.variants);
  current_.pipelines.merge(update.fresh.pipelines);
  pipelines_ = std::move(pipelines);
  stats_.create_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return {};
}

}  // namespace kiln::render
