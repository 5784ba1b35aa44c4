#include "kiln/render/pass_targets.h"

#include <vector>

#include "kiln/render/vulkan_context.h"

namespace kiln::render {

PassTargets pass_targets(std::string_view pass, const runtime::ShaderInterface& interface) {
  if (pass == "Shadow") return {PassKind::kShadow, VK_FORMAT_UNDEFINED, VK_FORMAT_D16_UNORM, true};
  if (pass == "Depth" || (pass != "Forward" && interface.fragment_outputs == 0))
    return {PassKind::kDepth, VK_FORMAT_UNDEFINED, VK_FORMAT_D32_SFLOAT, false};
  return {PassKind::kForward, VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_D32_SFLOAT, false};
}

const char* pass_kind_name(PassKind kind) {
  switch (kind) {
    case PassKind::kForward: return "forward";
    case PassKind::kDepth: return "depth";
    case PassKind::kShadow: return "shadow";
  }
  return "forward";
}

namespace {

std::string format_name(VkFormat format) {
  switch (format) {
    case VK_FORMAT_R16G16B16A16_SFLOAT: return "rgba16f";
    case VK_FORMAT_D32_SFLOAT: return "d32";
    case VK_FORMAT_D16_UNORM: return "d16";
    default: return "format" + std::to_string(int(format));
  }
}

}  // namespace

std::string describe_targets(const PassTargets& targets) {
  std::string out = pass_kind_name(targets.kind);
  if (targets.color != VK_FORMAT_UNDEFINED) out += " " + format_name(targets.color);
  out += " " + format_name(targets.depth);
  if (targets.depth_bias) out += " bias";
  return out;
}

std::string describe_vertex_layout(const runtime::ShaderInterface& interface) {
  std::string out;
  for (const runtime::VertexInput& in : interface.vertex_inputs)
    out += (out.empty() ? "" : " ") + std::to_string(in.location) + ":" + in.type;
  return out;
}

Result<VkRenderPass> RenderPasses::get(const PassTargets& targets) {
  const auto key = std::make_tuple(targets.color, targets.depth);
  if (auto it = passes_.find(key); it != passes_.end()) return it->second;
  std::vector<VkAttachmentDescription> attachments;
  VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref{0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  if (targets.color != VK_FORMAT_UNDEFINED) {
    // Left ready to be copied: into the frame, and back to the host.
    attachments.push_back({0, targets.color, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
                           VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                           VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL});
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &color_ref;
  }
  depth_ref.attachment = std::uint32_t(attachments.size());
  attachments.push_back({0, targets.depth, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
                         VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                         VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                         VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL});
  subpass.pDepthStencilAttachment = &depth_ref;
  // What the pass writes is visible to what comes after it (compute, transfer, sampling).
  VkSubpassDependency after{0, VK_SUBPASS_EXTERNAL};
  after.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  after.dstStageMask =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
  after.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = std::uint32_t(attachments.size());
  info.pAttachments = attachments.data();
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = 1;
  info.pDependencies = &after;
  VkRenderPass pass = VK_NULL_HANDLE;
  if (VkResult r = vkCreateRenderPass(device_, &info, nullptr, &pass); r != VK_SUCCESS)
    return make_error(std::string("cannot create a render pass: ") + vk_result_name(r));
  passes_.emplace(key, pass);
  return pass;
}

RenderPasses::~RenderPasses() {
  for (auto& [key, pass] : passes_) vkDestroyRenderPass(device_, pass, nullptr);
}

}  // namespace kiln::render
