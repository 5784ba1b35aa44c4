#include "gpu.h"

#include <cstdio>
#include <filesystem>

#include "kiln/cache/blob_store.h"
#include "kiln/core/text.h"
#include "kiln/render/pipeline_cache.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_renderer.h"
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
          {"frames", {{"count", frames}, {"first_ms", frame_ms_first}, {"mean_ms", frame_ms_mean}}},
          {"textures", {{"formats", texture_formats}, {"decoded", textures_decoded}}},
          {"pictures", pictures},
          {"validation", {{"on", validated}, {"messages", validation_messages}}}};
}

std::vector<std::string> GpuReport::lines(bool stats) const {
  if (!available) return {"no GPU rendering (" + unavailable_reason + "): checks only"};
  char line[512];
  std::snprintf(line, sizeof line, "%s (%u graphics, %u compute) on %s in %.1f ms, pipeline cache %s",
                count_of(graphics + compute, "pipeline").c_str(), graphics, compute, device.c_str(), create_ms,
                pipeline_cache.c_str());
  std::vector<std::string> out = {line};
  if (frames > 0) {
    std::snprintf(
        line, sizeof line, "%s, %.1f ms per frame (first %.1f ms)%s", count_of(std::size_t(frames), "frame").c_str(),
        frame_ms_mean, frame_ms_first,
        pictures.empty() ? "" : (", " + count_of(pictures.size(), "picture") + " in " + pictures_dir).c_str());
    out.push_back(line);
  }
  // A set whose textures the device cannot sample as they are is worth a line even without --stats.
  if (!texture_formats.empty() && (stats || textures_decoded > 0)) {
    std::string formats;
    for (const auto& [format, n] : texture_formats)
      formats += (formats.empty() ? "" : ", ") + std::to_string(n) + " " + format;
    out.push_back("textures: " + formats +
                  (textures_decoded ? "; " + count_of(textures_decoded, "texture") + " decoded to RGBA8 (" + device +
                                          " cannot sample its format)"
                                    : std::string(", uploaded as they are")));
  }
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

GpuSession::~GpuSession() = default;

Result<std::unique_ptr<GpuSession>> GpuSession::open(const runtime::CookedSet& set, const Config& config,
                                                     const GpuOptions& options) {
  std::unique_ptr<GpuSession> self(new GpuSession());
  self->options_ = options;
  GpuReport& report = self->report_;
  bool unavailable = false;
  auto context = render::VulkanContext::create(
      {.device = config.render_device, .validate = options.validate || config.render_validate}, &unavailable);
  if (!context) {
    if (!unavailable) return context.error();
    report.unavailable_reason = context.error().message;
    return self;
  }
  self->context_ = std::move(*context);
  report.available = true;
  report.device = self->context_->identity().name;
  report.driver = self->context_->identity().driver;
  report.validated = self->context_->validating();

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
  auto cache = render::PersistentPipelineCache::open(*self->context_, store.get());
  if (!cache) return cache.error();
  self->cache_ = std::move(*cache);
  if (store && self->cache_->load().outcome == render::PipelineCacheLoad::Outcome::kDisabled)
    std::fprintf(stderr, "kiln-player: pipeline cache off: %s\n", self->cache_->load().why.c_str());
  report.pipeline_cache = render::outcome_name(self->cache_->load().outcome);
  report.pipeline_cache_why = self->cache_->load().why;
  report.pipeline_cache_loaded = self->cache_->load().bytes;

  const render::CookedSetSource source(set);
  auto pipelines = render::PipelineSet::build(*self->context_, source, self->cache_->handle());
  if (!pipelines) return pipelines.error();
  self->pipelines_ = std::move(*pipelines);
  const render::PipelineStats& stats = self->pipelines_->stats();
  report.graphics = stats.graphics;
  report.compute = stats.compute;
  report.create_ms = stats.create_ms;
  report.driver_feedback = stats.feedback;
  report.driver_cache_hits = stats.driver_cache_hits;
  // A pipeline cache that cannot be saved costs the next start time, never this one.
  if (auto saved = self->cache_->save())
    report.pipeline_cache_saved = *saved;
  else
    std::fprintf(stderr, "kiln-player: pipeline cache not saved: %s\n", saved.error().message.c_str());
  self->cache_.reset();
  store.reset();  // flushed by save()

  if (options.frames > 0) {
    auto scene = render::SceneRenderer::create(
        *self->context_, source, *self->pipelines_,
        {.view_size = options.view_size, .decode_textures = config.render_decode_textures});
    if (!scene) return scene.error();
    self->scene_ = std::move(*scene);
  }
  return self;
}

Status GpuSession::render_frame(double t) {
  if (!scene_) return {};
  KILN_TRY(scene_->render_frame(t));
  if (report_.frames == 0) {
    report_.frame_ms_first = scene_->last_frame_ms();
    for (const auto& texture : scene_->uploaded_textures()) {
      ++report_.texture_formats[texture.format];
      report_.textures_decoded += texture.decoded;
    }
  }
  ++report_.frames;
  frame_ms_total_ += scene_->last_frame_ms();
  report_.frame_ms_mean = frame_ms_total_ / report_.frames;
  return {};
}

Status GpuSession::finish() {
  if (!context_) return {};
  if (scene_ && report_.frames > 0 && !options_.render_dir.empty()) {
    namespace fs = std::filesystem;
    const fs::path dir = options_.render_dir;
    for (std::size_t i = 0; i < scene_->drawn().size(); ++i) {
      auto picture = render::write_view_picture(*scene_, i, dir);
      if (!picture) return picture.error();
      report_.pictures.push_back(picture->generic_string());
    }
    KILN_TRY(textures::write_png(render::to_srgb8(scene_->frame()), dir / "frame.png"));
    report_.pictures.push_back("frame.png");
    report_.pictures_dir = options_.render_dir;
  }
  report_.validation_messages = context_->validation_messages();
  return {};
}

}  // namespace kiln::player
