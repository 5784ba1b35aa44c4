#include "kiln/runtime/shader_interface.h"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "kiln/core/json_document.h"

namespace kiln::runtime {
namespace {

using nlohmann::json;

std::optional<ShaderStage> stage_of(const std::string& name) {
  if (name == "vert") return ShaderStage::kVertex;
  if (name == "frag") return ShaderStage::kFragment;
  if (name == "comp") return ShaderStage::kCompute;
  return std::nullopt;
}

std::optional<DescriptorKind> kind_of(const std::string& name) {
  if (name == "uniform_buffer") return DescriptorKind::kUniformBuffer;
  if (name == "storage_buffer") return DescriptorKind::kStorageBuffer;
  if (name == "combined_image_sampler") return DescriptorKind::kCombinedImageSampler;
  if (name == "sampled_image") return DescriptorKind::kSampledImage;
  if (name == "sampler") return DescriptorKind::kSampler;
  if (name == "storage_image") return DescriptorKind::kStorageImage;
  return std::nullopt;
}

// Descriptor sets past this are refused: Vulkan guarantees 4 bound sets, and no reflection Kiln
// writes comes near it.
constexpr std::uint32_t kMaxSets = 8;
constexpr std::uint32_t kMaxBinding = 1024;
constexpr std::uint32_t kMaxArray = 4096;
constexpr std::uint32_t kMaxPushConstants = 4096;

std::vector<BlockMember> members_of(const json& block) {
  std::vector<BlockMember> out;
  for (const json& m : block.value("members", json::array()))
    out.push_back({m.at("name").get<std::string>(), m.at("type").get<std::string>(), json_u32_field(m, "offset"),
                   json_u32_field(m, "size")});
  return out;
}

// One stage's reflection into `out`; what is wrong, or nothing.
std::optional<std::string> add_stage(ShaderStage stage, const json& r, ShaderInterface& out,
                                     std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t>& index) {
  for (const json& b : r.at("bindings")) {
    DescriptorBinding d;
    d.set = json_u32_field(b, "set");
    d.binding = json_u32_field(b, "binding");
    d.name = b.at("name").get<std::string>();
    d.count = b.contains("count") ? json_u32_field(b, "count") : 1u;
    const std::string kind = b.at("kind").get<std::string>();
    const auto k = kind_of(kind);
    if (!k) return "binding " + d.name + ": descriptors of kind " + kind + " are not supported";
    d.kind = *k;
    d.block_size = b.contains("block_size") ? json_u32_field(b, "block_size") : 0u;
    d.members = members_of(b);
    d.stages = StageMask(stage);
    if (d.set >= kMaxSets || d.binding >= kMaxBinding || d.count == 0 || d.count > kMaxArray)
      return "binding " + d.name + ": set " + std::to_string(d.set) + " binding " + std::to_string(d.binding) +
             " count " + std::to_string(d.count) + " is out of range";
    const auto key = std::make_pair(d.set, d.binding);
    if (auto it = index.find(key); it != index.end()) {
      DescriptorBinding& known = out.bindings[it->second];
      if (known.kind != d.kind || known.count != d.count)
        return "set " + std::to_string(d.set) + " binding " + std::to_string(d.binding) + " is " +
               descriptor_kind_name(known.kind) + " " + known.name + " in one stage and " +
               descriptor_kind_name(d.kind) + " " + d.name + " in another";
      known.stages |= d.stages;
      known.block_size = std::max(known.block_size, d.block_size);
      continue;
    }
    index.emplace(key, out.bindings.size());
    out.set_count = std::max(out.set_count, d.set + 1);
    out.bindings.push_back(std::move(d));
  }
  for (const json& p : r.at("push_constants")) {
    const auto size = json_u32_field(p, "size");
    if (size > kMaxPushConstants || size % 4 != 0)
      return "push constants of " + std::to_string(size) + " bytes (a multiple of 4, at most " +
             std::to_string(kMaxPushConstants) + ")";
    if (size > out.push_constant_size) out.push_constant_members = members_of(p);
    out.push_constant_size = std::max(out.push_constant_size, size);
    out.push_constant_stages |= StageMask(stage);
  }
  if (stage == ShaderStage::kVertex)
    for (const json& in : r.at("inputs"))
      out.vertex_inputs.push_back(
          {json_u32_field(in, "location"), in.at("name").get<std::string>(), in.at("type").get<std::string>()});
  if (stage == ShaderStage::kFragment) out.fragment_outputs = std::uint32_t(r.at("outputs").size());
  if (stage == ShaderStage::kCompute) {
    out.compute = true;
    const json& size = r.at("local_size");
    for (std::size_t i = 0; i < 3; ++i) out.local_size[i] = json_u32(size.at(i), "local_size");
  }
  return std::nullopt;
}

}  // namespace

const DescriptorBinding* ShaderInterface::binding(std::uint32_t set, std::uint32_t b) const {
  for (const auto& d : bindings)
    if (d.set == set && d.binding == b) return &d;
  return nullptr;
}

const DescriptorBinding* ShaderInterface::binding_named(std::string_view name) const {
  for (const auto& d : bindings)
    if (d.name == name) return &d;
  return nullptr;
}

Result<ShaderInterface> shader_interface(const VariantRecord& variant, const std::string& where) {
  ShaderInterface out;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index;
  for (const StageRecord& s : variant.stages) {
    const auto stage = stage_of(s.stage);
    if (!stage) return make_error(where + ": stage " + s.stage + " is not supported (vert, frag, comp)");
    std::optional<std::string> problem;
    try {  // nlohmann::json reports missing or mistyped fields by exception
      const json r = json::parse(s.reflection_json);
      problem = add_stage(*stage, r, out, index);
    } catch (const std::exception& e) {  // nlohmann's, or json_u32's
      problem = std::string("reflection is not what the cook writes (") + e.what() + ")";
    }
    if (problem) return make_error(where + ": " + s.stage + ": " + *problem);
  }
  if (out.compute && variant.stages.size() != 1) return make_error(where + ": a compute shader with other stages");
  if (!out.compute && !variant.stage("vert")) return make_error(where + ": a graphics variant needs a vert stage");
  std::sort(out.bindings.begin(), out.bindings.end(),
            [](const auto& a, const auto& b) { return std::tie(a.set, a.binding) < std::tie(b.set, b.binding); });
  std::sort(out.vertex_inputs.begin(), out.vertex_inputs.end(),
            [](const auto& a, const auto& b) { return a.location < b.location; });
  return out;
}

const char* descriptor_kind_name(DescriptorKind kind) {
  switch (kind) {
    case DescriptorKind::kUniformBuffer: return "uniform_buffer";
    case DescriptorKind::kStorageBuffer: return "storage_buffer";
    case DescriptorKind::kCombinedImageSampler: return "combined_image_sampler";
    case DescriptorKind::kSampledImage: return "sampled_image";
    case DescriptorKind::kSampler: return "sampler";
    case DescriptorKind::kStorageImage: return "storage_image";
  }
  return "unknown";
}

}  // namespace kiln::runtime
