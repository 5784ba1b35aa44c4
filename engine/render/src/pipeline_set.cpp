#include "kiln/render/pipeline_set.h"

#include "graphics_pipeline.h"
#include "kiln/cache/hash.h"
#include "kiln/runtime/pack_contents.h"

#include <algorithm>
#include <chrono>
#include <span>
#include <optional>

namespace kiln::render {
namespace {

std::optional<VkShaderStageFlagBits> vk_stage_named(const std::string& name) {
  const auto stage = runtime::stage_named(name);
  if (!stage) return std::nullopt;
  return vk_stage(*stage);
}

}  // namespace

std::optional<std::string> PipelineSet::unbuildable(runtime::PipelineKind kind) const {
  // What this device lacks is said first: on a device without the extension no renderer could build it.
  const auto lacks = [&](const char* pipeline, const char* extension) {
    return std::string("a ") + pipeline + " needs " + extension + ", which " + context_.identity().name +
           " does not have";
  };
  switch (kind) {
    case runtime::PipelineKind::kGraphics:
    case runtime::PipelineKind::kCompute: return std::nullopt;
    case runtime::PipelineKind::kMesh:
      if (!context_.mesh_shader()) return lacks("mesh pipeline", "VK_EXT_mesh_shader");
      return std::string("kiln-player does not build mesh pipelines: an engine builds them from the cooked set");
    case runtime::PipelineKind::kRayTracing:
      if (!context_.ray_tracing()) return lacks("ray-tracing set", "VK_KHR_ray_tracing_pipeline");
      return std::string("kiln-player does not build ray-tracing pipelines: an engine builds them from the cooked set");
  }
  return std::nullopt;
}

usage::PipelineUse pipeline_use(const MaterialPipeline& p, const std::string& target) {
  const bool compute = p.bind_point == VK_PIPELINE_BIND_POINT_COMPUTE;
  return {.variant = runtime::variant_id(target, p.variant),
          .pass = p.pass,
          .vertex_layout = compute ? "" : describe_vertex_layout(p.shaders->interface),
          .render_pass = compute ? "compute" : describe_targets(p.targets),
          .target = target};
}

PipelineSet::PipelineSet(const VulkanContext& context, VkPipelineCache cache, PipelineOptions options)
    : context_(context),
      cache_(cache),
      options_(options),
      render_passes_(std::make_unique<RenderPasses>(context.device())) {}

PipelineSet::~PipelineSet() { destroy(current_); }

void PipelineSet::destroy(Made& made) {
  const VkDevice device = context_.device();
  for (auto& [key, made_pipeline] : made.pipelines) {
    vkDestroyPipeline(device, made_pipeline.pipeline, nullptr);
    destroy_parts(device, made_pipeline);
  }
  for (auto& [key, v] : made.variants)
    for (const StageModule& m : v->modules) vkDestroyShaderModule(device, m.module, nullptr);
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
  // The kind first: a set this device cannot build is refused for that, not for what its
  // interface holds (a ray-tracing set's acceleration structures).
  auto kind = runtime::pipeline_of(*record);
  if (!kind) return make_error(where + ": " + kind.error().message);
  if (auto refused = unbuildable(*kind)) return make_error(where + ": " + *refused);
  auto interface = runtime::shader_interface(*record, where);
  if (!interface) return interface.error();
  v->interface = std::move(*interface);
  auto layout = PipelineLayout::create(context_.device(), v->interface);
  if (!layout) return make_error(where + ": " + layout.error().message);
  v->layout = std::move(*layout);
  auto* raw = v.get();
  update.fresh.variants.emplace(key, std::move(v));  // owned from here: its modules go with the update
  for (const runtime::StageRecord& s : record->stages) {
    const auto stage = vk_stage_named(s.stage);
    if (!stage) return make_error(where + ": stage " + s.stage + " is not supported");
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = s.spirv.size() * sizeof(std::uint32_t);
    info.pCode = s.spirv.data();
    VkShaderModule module = VK_NULL_HANDLE;
    if (VkResult r = vkCreateShaderModule(context_.device(), &info, nullptr, &module); r != VK_SUCCESS)
      return make_error(where + ": " + s.stage + ": cannot create a shader module: " + vk_result_name(r));
    raw->modules.push_back({*stage, module, s.reflection.entry_point.empty() ? "main" : s.reflection.entry_point});
  }
  return raw;
}

void PipelineSet::count_feedback(const VkPipelineCreationFeedback& feedback) {
  if (!(feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT)) return;
  stats_.feedback = true;
  if (feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT) ++stats_.driver_cache_hits;
}

Result<VkPipeline> PipelineSet::make_compute(const DeviceVariant& v, VkPipelineCreationFeedback* whole) const {
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = v.modules.at(0).module;
  info.stage.pName = v.modules.at(0).entry.c_str();
  info.layout = v.layout->handle();
  VkPipelineCreationFeedback stage{};
  VkPipelineCreationFeedbackCreateInfo feedback{VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO};
  feedback.pPipelineCreationFeedback = whole;
  feedback.pipelineStageCreationFeedbackCount = 1;
  feedback.pPipelineStageCreationFeedbacks = &stage;
  if (context_.creation_feedback()) info.pNext = &feedback;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (VkResult r = vkCreateComputePipelines(context_.device(), cache_, 1, &info, nullptr, &pipeline); r != VK_SUCCESS)
    return make_error(std::string("cannot create the compute pipeline: ") + vk_result_name(r));
  return pipeline;
}

std::unique_ptr<PipelineSet> PipelineSet::create(const VulkanContext& context, VkPipelineCache cache,
                                                 PipelineOptions options) {
  return std::unique_ptr<PipelineSet>(new PipelineSet(context, cache, options));
}

Result<MadePipeline> PipelineSet::make(const MaterialPipeline& p, VkPipelineCreationFeedback* whole) const {
  if (p.bind_point == VK_PIPELINE_BIND_POINT_COMPUTE) {
    auto compute = make_compute(*p.shaders, whole);
    if (!compute) return compute.error();
    return MadePipeline{*compute};
  }
  return create_graphics_pipeline(context_, *p.shaders, p.targets, p.render_pass, cache_, options_.fast_link, whole);
}

void PipelineSet::account(const MaterialPipeline& p, const MadePipeline& made,
                          const VkPipelineCreationFeedback& whole) {
  if (context_.creation_feedback()) count_feedback(whole);
  if (p.bind_point == VK_PIPELINE_BIND_POINT_COMPUTE) {
    ++stats_.compute;
  } else {
    ++stats_.graphics;
    stats_.linked_fast += made.linked_fast();
  }
}

std::size_t PipelineSet::waiting_optimisation() const {
  return std::size_t(std::count_if(current_.pipelines.begin(), current_.pipelines.end(),
                                   [](const auto& entry) { return entry.second.linked_fast(); }));
}

Result<std::size_t> PipelineSet::optimise(std::size_t count) {
  for (auto& [key, made] : current_.pipelines) {
    if (count == 0) break;
    if (!made.linked_fast()) continue;
    const DeviceVariant& v = *current_.variants.at(key.first);
    auto optimised = link_optimised(context_, v, made, cache_);
    if (!optimised) return make_error(v.name + " pass " + key.second + ": " + optimised.error().message);
    for (MaterialPipeline& p : pipelines_)
      if (p.pipeline == made.pipeline) p.pipeline = *optimised;
    vkDestroyPipeline(context_.device(), made.pipeline, nullptr);
    made.pipeline = *optimised;
    made.optimised = true;
    --count;
  }
  return waiting_optimisation();
}

Result<std::unique_ptr<PipelineSet>> PipelineSet::build(const VulkanContext& context, const SceneSource& source,
                                                        VkPipelineCache cache) {
  auto self = create(context, cache, {});
  KILN_TRY(self->update(source));
  return self;
}

Result<VkPipeline> PipelineSet::pipeline(const PipelineKey& key, const MaterialPipeline& p, const std::string& where,
                                         Update& update) {
  if (auto it = current_.pipelines.find(key); it != current_.pipelines.end()) {
    if (update.kept_pipelines.insert(key).second) ++stats_.reused;
    return it->second.pipeline;
  }
  if (auto it = update.fresh.pipelines.find(key); it != update.fresh.pipelines.end()) return it->second.pipeline;
  VkPipelineCreationFeedback whole{};
  auto created = make(p, &whole);
  if (!created) return make_error(where + ": " + created.error().message);
  account(p, *created, whole);
  update.fresh.pipelines.emplace(key, *created);
  return created->pipeline;
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
      if ((*v)->interface.kind == runtime::PipelineKind::kCompute) {
        p.bind_point = VK_PIPELINE_BIND_POINT_COMPUTE;
      } else {
        p.targets = pass_targets(pass.pass, (*v)->interface);
        auto render_pass = render_passes_->get(p.targets);
        if (!render_pass) return fail(make_error(where + ": " + render_pass.error().message));
        p.render_pass = *render_pass;
      }
      if (options_.deferred) {  // made later: make_missing() or precreate()
        if (auto it = current_.pipelines.find({{(*v)->name, (*v)->digest}, pass.pass});
            it != current_.pipelines.end()) {
          update.kept_pipelines.insert(it->first);
          p.pipeline = it->second.pipeline;
        }
        pipelines.push_back(std::move(p));
        continue;
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
