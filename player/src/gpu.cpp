#include "gpu.h"

#include <cstdio>

#include "kiln/cache/blob_store.h"
#include "kiln/render/pipeline_cache.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/vulkan_context.h"

namespace kiln::player {

nlohmann::json GpuReport::to_json() const {
  if (!available) return {{"available", false}, {"reason", unavailable_reason}};
  return {{"available", true},
          {"device", device},
          {"driver", driver},
          {"pipelines", {{"graphics", graphics}, {"compute", compute}, {"create_ms", create_ms}}},
          {"pipeline_cache",
           {{"outcome", pipeline_cache},
            {"why", pipeline_cache_why},
            {"loaded_bytes", pipeline_cache_loaded},
            {"saved_bytes", pipeline_cache_saved}}},
          {"driver_feedback", {{"reported", driver_feedback}, {"cache_hits", driver_cache_hits}}},
          {"validation_messages", validation_messages}};
}

std::vector<std::string> GpuReport::lines(bool stats) const {
  if (!available) return {"no GPU rendering (" + unavailable_reason + "): checks only"};
  char line[512];
  std::snprintf(line, sizeof line, "%u pipelines (%u graphics, %u compute) on %s in %.1f ms, pipeline cache %s",
                graphics + compute, graphics, compute, device.c_str(), create_ms, pipeline_cache.c_str());
  std::vector<std::string> out = {line};
  if (!stats) return out;
  if (!pipeline_cache_why.empty()) out.push_back("pipeline cache: " + pipeline_cache_why);
  std::snprintf(line, sizeof line, "pipeline cache: %llu bytes handed to the driver, %llu bytes saved",
                static_cast<unsigned long long>(pipeline_cache_loaded),
                static_cast<unsigned long long>(pipeline_cache_saved));
  out.push_back(line);
  if (driver_feedback)
    std::snprintf(line, sizeof line, "driver feedback: %u of %u pipelines from the driver's cache", driver_cache_hits,
                  graphics + compute);
  else
    std::snprintf(line, sizeof line, "driver feedback: not reported by %s",
                  driver.empty() ? "the driver" : driver.c_str());
  out.push_back(line);
  return out;
}

Result<GpuReport> build_pipelines(const runtime::CookedSet& set, const Config& config, const GpuOptions& options) {
  GpuReport report;
  bool unavailable = false;
  auto context =
      render::VulkanContext::create({.device = config.render_device, .validate = options.validate}, &unavailable);
  if (!context) {
    if (!unavailable) return context.error();
    report.unavailable_reason = context.error().message;
    return report;
  }
  report.available = true;
  report.device = (*context)->identity().name;
  report.driver = (*context)->identity().driver;

  std::unique_ptr<cache::BlobStore> store;
  if (config.render_pipeline_cache) {
    auto opened = cache::BlobStore::open({.root = config.cache_root,
                                          .max_bytes = config.cache_disk_max_bytes,
                                          .keep_namespaces = config.cache_keep_builds});
    if (opened)
      store = std::move(*opened);
    else
      std::fprintf(stderr, "kiln-player: pipeline cache off: %s\n", opened.error().message.c_str());
  }
  auto cache = render::PersistentPipelineCache::open(**context, store.get());
  if (!cache) return cache.error();
  report.pipeline_cache = render::outcome_name((*cache)->load().outcome);
  report.pipeline_cache_why = (*cache)->load().why;
  report.pipeline_cache_loaded = (*cache)->load().bytes;

  auto pipelines = render::PipelineSet::build(**context, set, (*cache)->handle());
  if (!pipelines) return pipelines.error();
  const render::PipelineStats& stats = (*pipelines)->stats();
  report.graphics = stats.graphics;
  report.compute = stats.compute;
  report.create_ms = stats.create_ms;
  report.driver_feedback = stats.feedback;
  report.driver_cache_hits = stats.driver_cache_hits;
  auto saved = (*cache)->save();
  if (!saved) return saved.error();
  report.pipeline_cache_saved = *saved;
  report.validation_messages = (*context)->validation_messages();
  return report;
}

}  // namespace kiln::player
