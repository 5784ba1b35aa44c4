// A deferred PipelineSet's pipelines: made ahead from requests (a usage record's, on a worker
// pool, in the order asked) or when a frame first needs them.
#include <chrono>
#include <map>
#include <set>

#include "graphics_pipeline.h"
#include "kiln/render/pipeline_set.h"

namespace kiln::render {

// Owned by the set from here; every material pass of that variant and pass draws with it.
void PipelineSet::install(const PipelineKey& key, const MadePipeline& made) {
  current_.pipelines.emplace(key, made);
  for (MaterialPipeline& p : pipelines_)
    if (p.shaders->name == key.first.first && p.shaders->digest == key.first.second && p.pass == key.second)
      p.pipeline = made.pipeline;
}

Result<PrecreateResult> PipelineSet::precreate(const std::vector<PipelineRequest>& wanted, core::WorkerPool* pool) {
  const auto t0 = std::chrono::steady_clock::now();
  PrecreateResult result;
  // What to make: each asked-for pipeline once, in the order asked, skipping what exists.
  std::map<std::pair<std::string, std::string>, const MaterialPipeline*> by_request;
  for (const MaterialPipeline& p : pipelines_) by_request.emplace(std::pair{p.variant, p.pass}, &p);
  std::vector<std::pair<PipelineKey, const MaterialPipeline*>> work;
  std::set<PipelineKey> queued;
  for (const PipelineRequest& r : wanted) {
    auto it = by_request.find({r.variant, r.pass});
    if (it == by_request.end()) {
      ++result.not_used;
      continue;
    }
    const MaterialPipeline& p = *it->second;
    const bool compute = p.bind_point == VK_PIPELINE_BIND_POINT_COMPUTE;
    if (!r.vertex_layout.empty() || !r.render_pass.empty())
      if (r.vertex_layout != (compute ? "" : describe_vertex_layout(p.shaders->interface)) ||
          r.render_pass != (compute ? "compute" : describe_targets(p.targets)))
        ++result.changed;
    const PipelineKey key{{p.shaders->name, p.shaders->digest}, p.pass};
    if (current_.pipelines.count(key) || !queued.insert(key).second) continue;
    work.emplace_back(key, &p);
  }
  // Each pool thread writes its own slot only.
  struct Slot {
    Result<MadePipeline> made = make_error("not made");
    VkPipelineCreationFeedback feedback{};
  };
  std::vector<Slot> slots(work.size());
  const auto make_one = [&](std::size_t i) { slots[i].made = make(*work[i].second, &slots[i].feedback); };
  if (pool)
    pool->parallel_for(work.size(), make_one);
  else
    for (std::size_t i = 0; i < work.size(); ++i) make_one(i);
  for (std::size_t i = 0; i < work.size(); ++i)
    if (!slots[i].made) {
      const std::string failed =
          work[i].second->variant + " pass " + work[i].second->pass + ": " + slots[i].made.error().message;
      const VkDevice device = context_.device();
      for (Slot& s : slots)
        if (s.made) {
          vkDestroyPipeline(device, s.made->pipeline, nullptr);
          destroy_parts(device, *s.made);
        }
      return make_error(failed);
    }
  for (std::size_t i = 0; i < work.size(); ++i) {
    account(*work[i].second, *slots[i].made, slots[i].feedback);
    install(work[i].first, *slots[i].made);
  }
  result.made = work.size();
  result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  stats_.create_ms += result.ms;
  return result;
}

Result<std::size_t> PipelineSet::make_missing() {
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t made = 0;
  for (std::size_t i = 0; i < pipelines_.size(); ++i) {
    const MaterialPipeline& p = pipelines_[i];
    if (p.pipeline != VK_NULL_HANDLE) continue;
    const PipelineKey key{{p.shaders->name, p.shaders->digest}, p.pass};
    VkPipelineCreationFeedback feedback{};
    auto created = make(p, &feedback);
    if (!created)
      return make_error(p.material + " pass " + p.pass + " (" + p.variant + "): " + created.error().message);
    account(p, *created, feedback);
    install(key, *created);
    ++made;
  }
  if (made)
    stats_.create_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return made;
}

}  // namespace kiln::render
