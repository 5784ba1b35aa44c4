#pragma once
// The player's GPU side: the Vulkan device, the persisted pipeline cache and every pipeline the
// cooked materials need. Without a usable device the player says so in one line and carries on
// with its checks.

#include <memory>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"
#include "kiln/core/result.h"
#include "kiln/render/pipeline_cache.h"
#include "kiln/render/pipeline_set.h"
#include "kiln/render/scene_renderer.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/cooked_set.h"
#include "kiln/usage/usage_recorder.h"

namespace kiln::player {

struct GpuOptions {
  bool validate = false;     // VK_LAYER_KHRONOS_validation (or render.validate); any message fails the run
  bool require_gpu = false;  // no device is a failure, not a note
  int frames = 0;            // frames of the sample scene to render
  std::string render_dir;    // where the last frame's pictures go (one per material, frame.png); empty: none
  std::uint32_t view_size = 256;
  // The set's recorded pipelines (CookedSet::recorded_pipelines), made before the first frame.
  std::vector<usage::PipelineUse> recorded_pipelines;
  int jobs = 0;  // worker threads for that, 0: one per core
  // Where what the run uses is recorded (pipelines as they are made, textures as they are
  // uploaded), with the target its variants are of; none: nothing is recorded.
  usage::UsageRecorder* recorder = nullptr;
  std::string target;
};

struct GpuReport {
  bool available = false;
  std::string unavailable_reason;  // !available
  std::string device, driver;
  std::uint32_t graphics = 0, compute = 0;
  double create_ms = 0;
  // Rendering frames, pipelines are made when a frame first needs them unless made ahead: those the
  // set's usage record names, on the worker pool before the first frame (goal: none during frames).
  std::size_t recorded = 0;          // pipelines the set's record names
  std::size_t precreated = 0;        // made ahead from it
  std::size_t recorded_unused = 0;   // named by it, but no material played uses them
  std::size_t recorded_changed = 0;  // named with a state their variant no longer has
  double precreate_ms = 0;
  int precreate_threads = 0;
  std::size_t during_frames = 0;  // made while frames were drawn
  std::string pipeline_cache;     // "hit", "miss", "rejected", "off"
  std::string pipeline_cache_why;
  std::uint64_t pipeline_cache_loaded = 0, pipeline_cache_saved = 0;  // bytes
  bool driver_feedback = false;
  std::uint32_t driver_cache_hits = 0;
  bool validated = false;  // the validation layer was on
  std::vector<std::string> validation_messages;
  int frames = 0;
  double frame_ms_first = 0, frame_ms_mean = 0;        // the first frame (uploads done) and the mean of all
  std::map<std::string, std::size_t> texture_formats;  // uploaded textures per format shipped ("bc7": 2)
  std::size_t textures_decoded = 0;   // of a format the device cannot sample, decoded (render.decode_textures)
  std::vector<std::string> pictures;  // written under render_dir
  std::string pictures_dir;           // that directory, as given

  nlohmann::json to_json() const;
  std::vector<std::string> lines(bool stats) const;  // for people: one line, more with --stats
};

// The device, the pipelines and, with frames to render, the scene. Errors are failures of a device
// that exists (a pipeline the driver refuses, a damaged variant, an unwritable picture); a machine
// without one gives a session whose report says available = false and whose scene is null.
class GpuSession {
 public:
  // `source` holds the materials played (of the set); it must outlive the session.
  static Result<std::unique_ptr<GpuSession>> open(const render::SceneSource& source, const Config& config,
                                                  const GpuOptions& options);
  ~GpuSession();

  render::SceneRenderer* scene() { return scene_.get(); }
  Status render_frame(double t);  // nothing without a scene
  // Saves the pipeline cache, writes the last frame's pictures (with options.render_dir) and
  // gathers the validation messages.
  Status finish();
  const GpuReport& report() const { return report_; }

 private:
  GpuSession() = default;
  void record_made();
  void count_made();
  GpuOptions options_;
  GpuReport report_;
  double frame_ms_total_ = 0;
  // Destroyed in reverse: the scene and pipelines before the cache, the cache before its store,
  // everything before the device.
  std::unique_ptr<render::VulkanContext> context_;
  std::unique_ptr<cache::BlobStore> store_;
  std::unique_ptr<render::PersistentPipelineCache> cache_;
  std::unique_ptr<render::PipelineSet> pipelines_;
  std::unique_ptr<render::SceneRenderer> scene_;
};

}  // namespace kiln::player
