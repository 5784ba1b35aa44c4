#pragma once
// Every pipeline a cooked set's materials need, made from the cooked records alone: for each
// material and pass, the variant's SPIR-V becomes shader modules, its stored reflection the
// descriptor set and pipeline layouts (shader_interface.h, pipeline_layout.h), the pass its
// render-target setup (pass_targets.h). Materials that use one variant in one pass share its
// pipeline; a compute variant gets a compute pipeline. Creation goes through the given pipeline
// cache and asks the driver for its creation feedback when it offers it.
//
// Vertex input: one binding per attribute (a separate stream per input location, tightly packed),
// viewport and scissor dynamic, no face culling (alpha-tested foliage shows both sides), triangle
// lists, depth test less-or-equal;
// Forward blends premultiplied colour (one, one-minus-source-alpha).
//
// Thread-safety: built and destroyed by one thread; the handles may be used from any thread.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/render/pass_targets.h"
#include "kiln/render/pipeline_layout.h"
#include "kiln/runtime/shader_interface.h"
#include "kiln/render/vulkan_context.h"
#include "kiln/runtime/cooked_set.h"

namespace kiln::render {

struct PipelineStats {
  std::uint32_t graphics = 0, compute = 0;  // pipelines created
  double create_ms = 0;                     // wall time of all creations
  bool feedback = false;                    // the driver reported creation feedback
  std::uint32_t driver_cache_hits = 0;      // pipelines the driver says came from its cache
};

// A variant compiled for the device: its interface, layout and shader modules.
struct DeviceVariant {
  std::string name;
  runtime::ShaderInterface interface;
  std::unique_ptr<PipelineLayout> layout;
  std::vector<std::pair<VkShaderStageFlagBits, VkShaderModule>> modules;
};

struct MaterialPipeline {
  std::string material, pass, variant;
  PassTargets targets;
  VkRenderPass render_pass = VK_NULL_HANDLE;  // graphics only
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_GRAPHICS;
  const DeviceVariant* shaders = nullptr;
};

class PipelineSet {
 public:
  // Errors name the pack and the material, pass or variant.
  static Result<std::unique_ptr<PipelineSet>> build(const VulkanContext& context, const runtime::CookedSet& set,
                                                    VkPipelineCache cache);
  ~PipelineSet();
  PipelineSet(const PipelineSet&) = delete;
  PipelineSet& operator=(const PipelineSet&) = delete;

  const std::vector<MaterialPipeline>& pipelines() const { return pipelines_; }  // by material, then pass
  const MaterialPipeline* find(std::string_view material, std::string_view pass) const;
  const PipelineStats& stats() const { return stats_; }
  RenderPasses& render_passes() { return *render_passes_; }

 private:
  explicit PipelineSet(const VulkanContext& context);
  Result<const DeviceVariant*> device_variant(const runtime::CookedSet& set, const std::string& name);
  Result<VkPipeline> create_graphics(const DeviceVariant& v, const PassTargets& targets, VkRenderPass pass,
                                     VkPipelineCache cache);
  Result<VkPipeline> create_compute(const DeviceVariant& v, VkPipelineCache cache);
  void count_feedback(const VkPipelineCreationFeedback& feedback);

  const VulkanContext& context_;
  std::unique_ptr<RenderPasses> render_passes_;
  std::map<std::string, std::unique_ptr<DeviceVariant>> variants_;
  std::map<std::pair<std::string, std::string>, VkPipeline> shared_;  // (variant, pass) -> pipeline
  std::vector<MaterialPipeline> pipelines_;
  PipelineStats stats_;
};

}  // namespace kiln::render
