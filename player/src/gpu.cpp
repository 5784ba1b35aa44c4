#include "gpu.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "kiln/cache/blob_store.h"
#include "kiln/core/worker_pool.h"
#include "kiln/core/text.h"
#include "kiln/render/pipeline_cache.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_renderer.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/pack_contents.h"

namespace kiln::player {

nlohmann::json GpuReport::to_json() const {
  if (!available) return {{"available", false}, {"reason", unavailable_reason}};
  return {{"available", true},
          {"device", device},
          {"driver", driver},
          {"pipelines",
           {{"graphics", graphics},
            {"compute", compute},
            {"create_ms", create_ms},
            {"recorded", recorded},
            {"precreated", precreated},
            {"recorded_unused", recorded_unused},
            {"recorded_changed", recorded_changed},
            {"precreate_ms", precreate_ms},
            {"precreate_threads", precreate_threads},
            {"during_frames", during_frames}}},
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
    if (recorded > 0)
      std::snprintf(line, sizeof line,
                    "pipelines: %zu made before the first frame from the set's usage record (%d threads, %.1f ms), "
                    "%zu during frames",
                    precreated, precreate_threads, precreate_ms, during_frames);
    else
      std::snprintf(line, sizeof line,
                    "pipelines: %zu made during frames (the set has no usage record to make them before the first "
                    "frame: kiln cook --usage)",
                    during_frames);
    out.push_back(line);
    if (recorded_unused || recorded_changed) {
      std::snprintf(line, sizeof line,
                    "pipelines: of the set's record, %zu not used by the materials played, %zu recorded with "
                    "another state",
                    recorded_unused, recorded_changed);
      out.push_back(line);
    }
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

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// The pipelines made so far, in the set's order (material, then pass); the recorder keeps the
// order each was first seen made.
void GpuSession::record_made() {
  if (!options_.recorder || !pipelines_) return;
  for (const render::MaterialPipeline& p : pipelines_->pipelines())
    if (p.pipeline != VK_NULL_HANDLE) options_.recorder->pipeline(render::pipeline_use(p, options_.target));
}

void GpuSession::count_made() {
  const render::PipelineStats& stats = pipelines_->stats();
  report_.graphics = stats.graphics;
  report_.compute = stats.compute;
  report_.create_ms = stats.create_ms;
  report_.driver_feedback = stats.feedback;
  report_.driver_cache_hits = stats.driver_cache_hits;
}

Result<std::unique_ptr<GpuSession>> GpuSession::open(const render::SceneSource& source, const Config& config,
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

  if (config.render_pipeline_cache) {
    auto opened = cache::BlobStore::open({.root = config.cache_root,
                                          .max_bytes = config.cache_disk_max_bytes,
                                          .keep_namespaces = config.cache_keep_builds});
    if (opened)
      self->store_ = std::move(*opened);
    else
      std::fprintf(stderr, "kiln-player: pipeline cache off: %s\n", opened.error().message.c_str());
  }
  auto cache = render::PersistentPipelineCache::open(*self->context_, self->store_.get());
  if (!cache) return cache.error();
  self->cache_ = std::move(*cache);
  if (self->store_ && self->cache_->load().outcome == render::PipelineCacheLoad::Outcome::kDisabled)
    std::fprintf(stderr, "kiln-player: pipeline cache off: %s\n", self->cache_->load().why.c_str());
  report.pipeline_cache = render::outcome_name(self->cache_->load().outcome);
  report.pipeline_cache_why = self->cache_->load().why;
  report.pipeline_cache_loaded = self->cache_->load().bytes;

  // Checking alone, every material's pipelines are made now. Drawing frames, as a game does: those
  // the set's usage record names before the first frame, on the worker pool, the rest when a frame
  // first needs them.
  const bool deferred = options.frames > 0;
  self->pipelines_ = render::PipelineSet::create(*self->context_, self->cache_->handle(), {.deferred = deferred});
  KILN_TRY(self->pipelines_->update(source));
  if (deferred && !options.recorded_pipelines.empty()) {
    std::vector<render::PipelineRequest> wanted;
    for (const usage::PipelineUse& p : options.recorded_pipelines)
      if (const auto id = runtime::split_variant_id(p.variant);
          id && id->first == options.target && p.target == options.target)
        wanted.push_back({std::string(id->second), p.pass, p.vertex_layout, p.render_pass});
    core::WorkerPool pool(options.jobs);
    auto made = self->pipelines_->precreate(wanted, &pool);
    if (!made) return made.error();
    report.recorded = options.recorded_pipelines.size();
    report.precreated = made->made;
    report.recorded_unused = made->not_used + (options.recorded_pipelines.size() - wanted.size());
    report.recorded_changed = made->changed;
    report.precreate_ms = made->ms;
    report.precreate_threads = pool.size();
  }
  self->record_made();
  self->count_made();

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
  // The frame includes making what it needs that was not made ahead: the hitch a record removes.
  const auto t0 = std::chrono::steady_clock::now();
  auto made = pipelines_->make_missing();
  if (!made) return made.error();
  if (*made) {
    report_.during_frames += *made;
    record_made();
    count_made();
  }
  KILN_TRY(scene_->render_frame(t));
  const double frame_ms = ms_since(t0);
  if (report_.frames == 0) {
    report_.frame_ms_first = frame_ms;
    for (const auto& texture : scene_->uploaded_textures()) {
      ++report_.texture_formats[texture.format];
      report_.textures_decoded += texture.decoded;
      if (options_.recorder)
        for (std::uint32_t level = 0; level < texture.levels; ++level)
          options_.recorder->texture_level(texture.file, level);
    }
  }
  ++report_.frames;
  frame_ms_total_ += frame_ms;
  report_.frame_ms_mean = frame_ms_total_ / report_.frames;
  return {};
}

Status GpuSession::finish() {
  if (!context_) return {};
  // After the frames, so that the pipelines they made are in it. One that cannot be saved costs
  // the next start time, never this run.
  if (cache_) {
    if (auto saved = cache_->save())
      report_.pipeline_cache_saved = *saved;
    else
      std::fprintf(stderr, "kiln-player: pipeline cache not saved: %s\n", saved.error().message.c_str());
  }
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
