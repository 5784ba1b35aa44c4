#pragma once
// The player's GPU side: the Vulkan device, the persisted pipeline cache and every pipeline the
// cooked materials need. Without a usable device the player says so in one line and carries on
// with its checks.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/core/config.h"
#include "kiln/core/result.h"
#include "kiln/runtime/cooked_set.h"

namespace kiln::player {

struct GpuOptions {
  bool validate = false;     // VK_LAYER_KHRONOS_validation; any message fails the run
  bool require_gpu = false;  // no device is a failure, not a note
  int frames = 0;            // frames of the sample scene to render
  std::string render_dir;    // where the last frame's pictures go (one per material, frame.png); empty: none
  std::uint32_t view_size = 256;
};

struct GpuReport {
  bool available = false;
  std::string unavailable_reason;  // !available
  std::string device, driver;
  std::uint32_t graphics = 0, compute = 0;
  double create_ms = 0;
  std::string pipeline_cache;  // "hit", "miss", "rejected", "off"
  std::string pipeline_cache_why;
  std::uint64_t pipeline_cache_loaded = 0, pipeline_cache_saved = 0;  // bytes
  bool driver_feedback = false;
  std::uint32_t driver_cache_hits = 0;
  std::vector<std::string> validation_messages;
  int frames = 0;
  double frame_ms_first = 0, frame_ms_mean = 0;  // the first frame (uploads done) and the mean of all
  std::vector<std::string> pictures;             // written under render_dir

  nlohmann::json to_json() const;
  std::vector<std::string> lines(bool stats) const;  // for people: one line, more with --stats
};

// Creates the pipelines, then renders options.frames frames and writes the pictures. Errors are
// failures of a device that exists (a pipeline the driver refuses, a damaged variant, an unwritable
// picture); a machine without one gives a report with available = false.
Result<GpuReport> run_gpu(const runtime::CookedSet& set, const Config& config, const GpuOptions& options);

}  // namespace kiln::player
