#pragma once
// Every pipeline a scene's materials need, made from their records alone (a cooked set's, or
// records in memory: scene_source.h): for each material and pass, the variant's SPIR-V becomes
// shader modules, its stored reflection the descriptor set and pipeline layouts
// (shader_interface.h, pipeline_layout.h), the pass its render-target setup (pass_targets.h).
// Materials that use one variant in one pass share its pipeline; a compute variant gets a compute
// pipeline. Creation goes through the given pipeline cache and asks the driver for its creation
// feedback when it offers it.
//
// A set kept warm (create, then update after each change of the source) makes only what changed:
// a variant is known by its name and the digest of its SPIR-V, so an edited variant of the same
// name gets new modules and pipelines and an unchanged one keeps its own; what no material uses
// any more is destroyed by the update.
//
// Vertex input: one binding per attribute (a separate stream per input location, tightly packed),
// viewport and scissor dynamic, back faces culled (the preview meshes are closed), triangle lists,
// depth test less-or-equal;
// Forward blends premultiplied colour (one, one-minus-source-alpha).
//
// Thread-safety: built, updated and destroyed by one thread; the handles may be used from any
// thread until the next update (which the caller makes when the device no longer uses them).
// precreate() runs its creations on a worker pool and puts what they made in place on the calling
// thread: the pool's threads write only their own result slot.

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/core/worker_pool.h"
#include "kiln/render/pass_targets.h"
#include "kiln/render/pipeline_layout.h"
#include "kiln/runtime/shader_interface.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/render/scene_source.h"
#include "kiln/usage/usage_record.h"

namespace kiln::render {

struct PipelineStats {
  std::uint32_t graphics = 0, compute = 0;  // pipelines created (by the last update)
  std::uint32_t reused = 0;                 // pipelines the last update kept from before
  std::uint32_t linked_fast = 0;            // of the graphics ones, linked fast from parts
  double create_ms = 0;                     // wall time of all creations
  bool feedback = false;                    // the driver reported creation feedback
  std::uint32_t driver_cache_hits = 0;      // pipelines the driver says came from its cache
};

// One stage's module and the function it starts at (an HLSL stage's entry point need not be main).
struct StageModule {
  VkShaderStageFlagBits stage;
  VkShaderModule module;
  std::string entry;
};

// A variant compiled for the device: its interface, layout and shader modules.
struct DeviceVariant {
  std::string name;
  std::uint64_t digest = 0;  // of its stages' SPIR-V
  runtime::ShaderInterface interface;
  std::unique_ptr<PipelineLayout> layout;
  std::vector<StageModule> modules;
};

// A pipeline the set made. One linked from parts keeps them as long as it lives: for its optimised
// link, and because some validation layers still refer to them from the linked pipeline.
struct MadePipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  std::array<VkPipeline, 4> parts{};  // vertex input, pre-rasterisation, fragment shader, output
  bool optimised = false;             // linked again with link-time optimisation
  bool linked_fast() const { return parts[0] != VK_NULL_HANDLE && !optimised; }
};

struct PipelineOptions {
  // Graphics pipelines linked fast from their four parts where the device offers
  // VK_EXT_graphics_pipeline_library (an editor, whose pictures should come first), and linked
  // again optimised by optimise(); otherwise, and by default, each is made whole and optimised.
  bool fast_link = false;
  // update() lays the materials' pipelines out (shader modules, layouts, render passes) but makes
  // none: precreate() makes the ones asked for ahead (a usage record's, on a worker pool) and
  // make_missing() the rest when a frame needs them (a game's first draw of a material).
  bool deferred = false;
};

// A pipeline asked for ahead: its variant's name and its pass.
struct PipelineRequest {
  std::string variant, pass;
  std::string vertex_layout, render_pass;  // the state it was recorded with (describe_*); empty: not checked
};

struct PrecreateResult {
  std::size_t made = 0;      // pipelines made now
  std::size_t not_used = 0;  // asked for, but no material of the source has that variant in that pass
  std::size_t changed = 0;   // asked for with a state the variant no longer has (made with its own)
  double ms = 0;             // wall time
};

struct MaterialPipeline {
  std::string material, pass, variant;
  PassTargets targets;
  VkRenderPass render_pass = VK_NULL_HANDLE;  // graphics only
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
  const DeviceVariant* shaders = nullptr;
};

// A pipeline as a usage record names it: its variant's id for `target`, its pass and the state that
// made it (describe_vertex_layout, describe_targets; "compute" for a compute pipeline).
usage::PipelineUse pipeline_use(const MaterialPipeline& p, const std::string& target);

class PipelineSet {
 public:
  // Errors name the pack and the material, pass or variant.
  static Result<std::unique_ptr<PipelineSet>> build(const VulkanContext& context, const SceneSource& source,
                                                    VkPipelineCache cache);
  // An empty set, to be kept warm by update().
  static std::unique_ptr<PipelineSet> create(const VulkanContext& context, VkPipelineCache cache,
                                             PipelineOptions options = {});
  // The pipelines of every material `source` has now; on an error the set is as it was.
  Status update(const SceneSource& source);
  // Deferred: makes the pipelines of `wanted` not made yet, in order, on `pool` (none: this thread).
  // On an error nothing of what it made is kept.
  Result<PrecreateResult> precreate(const std::vector<PipelineRequest>& wanted, core::WorkerPool* pool);
  // Deferred: makes every material's pipeline not made yet, on this thread; how many it made.
  Result<std::size_t> make_missing();
  // Links up to `count` of the pipelines linked fast again, optimised, and puts them in their place
  // (the device must not be using the fast ones: between frames); how many wait still.
  Result<std::size_t> optimise(std::size_t count);
  std::size_t waiting_optimisation() const;
  ~PipelineSet();
  PipelineSet(const PipelineSet&) = delete;
  PipelineSet& operator=(const PipelineSet&) = delete;

  const std::vector<MaterialPipeline>& pipelines() const { return pipelines_; }  // by material, then pass
  const MaterialPipeline* find(std::string_view material, std::string_view pass) const;
  const PipelineStats& stats() const { return stats_; }
  RenderPasses& render_passes() { return *render_passes_; }

 private:
  // Why this set cannot build a pipeline of `kind` here (naming the device feature it lacks), or nothing.
  std::optional<std::string> unbuildable(runtime::PipelineKind kind) const;
  using VariantKey = std::pair<std::string, std::uint64_t>;  // name, digest
  using PipelineKey = std::pair<VariantKey, std::string>;    // variant, pass
  struct Made {
    std::map<VariantKey, std::unique_ptr<DeviceVariant>> variants;
    std::map<PipelineKey, MadePipeline> pipelines;
  };
  struct Update {  // an update's work: what it made, and which of the set's own it still uses
    Made fresh;
    std::set<VariantKey> kept_variants;
    std::set<PipelineKey> kept_pipelines;
  };

  PipelineSet(const VulkanContext& context, VkPipelineCache cache, PipelineOptions options);
  Result<const DeviceVariant*> device_variant(const SceneSource& source, const std::string& name, Update& update);
  Result<VkPipeline> pipeline(const PipelineKey& key, const MaterialPipeline& p, const std::string& where,
                              Update& update);
  // Thread-safe: touch nothing of the set but the device and the cache (which Vulkan synchronises).
  Result<VkPipeline> make_compute(const DeviceVariant& v, VkPipelineCreationFeedback* whole) const;
  Result<MadePipeline> make(const MaterialPipeline& p, VkPipelineCreationFeedback* whole) const;
  void account(const MaterialPipeline& p, const MadePipeline& made, const VkPipelineCreationFeedback& whole);
  void install(const PipelineKey& key, const MadePipeline& made);
  void count_feedback(const VkPipelineCreationFeedback& feedback);
  void destroy(Made& made);

  const VulkanContext& context_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  PipelineOptions options_;
  std::unique_ptr<RenderPasses> render_passes_;
  Made current_;  // what the materials of the last update use
  std::vector<MaterialPipeline> pipelines_;
  PipelineStats stats_;
};

}  // namespace kiln::render
