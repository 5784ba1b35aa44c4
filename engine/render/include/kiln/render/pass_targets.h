#pragma once
// What each pass renders into, and the render passes for it:
//   Forward  an RGBA16F colour target (HDR, read by the post-process compute pass) and D32 depth
//   Depth    D32 depth only (a depth pre-pass)
//   Shadow   D16 depth only (a shadow map), with depth bias against acne
// A pass of another name is Forward when its fragment stage writes colour, else Depth.
//
// Thread-safety: RenderPasses is owned by one thread; its handles may be used from any thread.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>

#include <vulkan/vulkan.h>

#include "kiln/core/result.h"
#include "kiln/runtime/shader_interface.h"

namespace kiln::render {

enum class PassKind { kForward, kDepth, kShadow };

struct PassTargets {
  PassKind kind = PassKind::kForward;
  VkFormat color = VK_FORMAT_UNDEFINED;  // VK_FORMAT_UNDEFINED: no colour target
  VkFormat depth = VK_FORMAT_D32_SFLOAT;
  bool depth_bias = false;
};

PassTargets pass_targets(std::string_view pass, const runtime::ShaderInterface& interface);
const char* pass_kind_name(PassKind kind);
// The targets as stable text, for usage records: "forward rgba16f d32", "shadow d16 bias".
std::string describe_targets(const PassTargets& targets);
// A vertex stage's input as the pipeline takes it (one tightly packed stream per location), as
// stable text: "0:vec3 1:vec3 2:vec2"; empty for none.
std::string describe_vertex_layout(const runtime::ShaderInterface& interface);

// One VkRenderPass per distinct target setup: clears on load, keeps what it stores; colour ends
// ready to be copied (transfer source), depth ready to be sampled or tested again.
class RenderPasses {
 public:
  explicit RenderPasses(VkDevice device) : device_(device) {}
  ~RenderPasses();
  RenderPasses(const RenderPasses&) = delete;
  RenderPasses& operator=(const RenderPasses&) = delete;
  Result<VkRenderPass> get(const PassTargets& targets);

 private:
  VkDevice device_;
  std::map<std::tuple<VkFormat, VkFormat>, VkRenderPass> passes_;
};

}  // namespace kiln::render
