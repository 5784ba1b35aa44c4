#include "kiln/runtime/shader_interface.h"

#include <algorithm>
#include <map>
#include <optional>

namespace kiln::runtime {
namespace {

// The stages this interface describes: all but tessellation and geometry.
std::optional<ShaderStage> stage_of(const std::string& name) {
  const auto stage = stage_named(name);
  if (!stage || *stage == ShaderStage::kTessControl || *stage == ShaderStage::kTessEval ||
      *stage == ShaderStage::kGeometry)
    return std::nullopt;
  return stage;
}

}  // namespace

// The fragment stage ends a graphics pipeline and a mesh pipeline alike.
Result<PipelineKind> pipeline_of(const VariantRecord& variant) {
  StageMask stages = 0;
  bool mesh = false, ray = false, compute = false;
  for (const StageRecord& s : variant.stages) {
    const auto named = stage_named(s.stage);
    if (!named) return make_error("stage " + s.stage + " is not a stage Kiln knows");
    const ShaderStage stage = *named;
    stages |= stage_bit(stage);
    mesh = mesh || pipeline_kind(stage) == PipelineKind::kMesh;
    ray = ray || pipeline_kind(stage) == PipelineKind::kRayTracing;
    compute = compute || stage == ShaderStage::kCompute;
  }
  const auto has = [&](ShaderStage s) { return (stages & stage_bit(s)) != 0; };
  if (int(mesh) + int(ray) + int(compute) + int(has(ShaderStage::kVertex)) > 1)
    return make_error("its stages make no one pipeline (vertex, mesh, compute and ray-tracing stages mixed)");
  if (compute) {
    if (variant.stages.size() != 1) return make_error("a compute shader with other stages");
    return PipelineKind::kCompute;
  }
  if (ray) {
    const StageMask hit =
        stage_bit(ShaderStage::kClosestHit) | stage_bit(ShaderStage::kAnyHit) | stage_bit(ShaderStage::kIntersection);
    const bool one_group =
        (stages & ~hit) == 0 || stages == stage_bit(ShaderStage::kMiss) || stages == stage_bit(ShaderStage::kCallable);
    if (!has(ShaderStage::kRayGen) && !one_group)
      return make_error(
          "ray-tracing stages without a rgen stage make one hit group (rchit, rahit, rint), one miss or one "
          "callable stage, not several");
    return PipelineKind::kRayTracing;
  }
  if (mesh) {
    if (!has(ShaderStage::kMesh)) return make_error("a task stage needs a mesh stage");
    return PipelineKind::kMesh;
  }
  if (!has(ShaderStage::kVertex)) return make_error("a graphics variant needs a vert stage");
  return PipelineKind::kGraphics;
}

namespace {

// Acceleration structures only in ray-tracing variants: a renderer that binds them builds those.
bool bindable(DescriptorKind kind, PipelineKind pipeline) {
  return kind != DescriptorKind::kInputAttachment &&
         (kind != DescriptorKind::kAccelerationStructure || pipeline == PipelineKind::kRayTracing);
}

std::vector<RayTracingGroup> ray_tracing_groups(const VariantRecord& variant) {
  auto index = [&](ShaderStage stage) {
    for (std::uint32_t i = 0; i < variant.stages.size(); ++i)
      if (stage_named(variant.stages[i].stage) == stage) return i;
    return RayTracingGroup::kNone;
  };
  using Type = RayTracingGroup::Type;
  std::vector<RayTracingGroup> out;
  for (ShaderStage general : {ShaderStage::kRayGen, ShaderStage::kMiss})
    if (index(general) != RayTracingGroup::kNone) out.push_back({Type::kGeneral, index(general)});
  RayTracingGroup hit{Type::kTriangles, RayTracingGroup::kNone, index(ShaderStage::kClosestHit),
                      index(ShaderStage::kAnyHit), index(ShaderStage::kIntersection)};
  if (hit.intersection != RayTracingGroup::kNone) hit.type = Type::kProcedural;
  // A procedural group may have its intersection stage alone, as Vulkan allows.
  if (hit.closest_hit != RayTracingGroup::kNone || hit.any_hit != RayTracingGroup::kNone ||
      hit.intersection != RayTracingGroup::kNone)
    out.push_back(hit);
  if (index(ShaderStage::kCallable) != RayTracingGroup::kNone)
    out.push_back({Type::kGeneral, index(ShaderStage::kCallable)});
  return out;
}

// Descriptor sets past this are refused: Vulkan guarantees 4 bound sets, and no reflection Kiln
// writes comes near it.
constexpr std::uint32_t kMaxSets = 8;
constexpr std::uint32_t kMaxBinding = 1024;
constexpr std::uint32_t kMaxArray = 4096;
constexpr std::uint32_t kMaxPushConstants = 4096;

// One stage's reflection into `out`; what is wrong, or nothing.
std::optional<std::string> add_stage(ShaderStage stage, const StageReflection& r, ShaderInterface& out,
                                     std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t>& index) {
  if (!r.unavailable.empty()) return "no reflection, so no pipeline layout (" + r.unavailable + ")";
  for (const ReflectedBinding& b : r.bindings) {
    if (!bindable(b.kind, out.kind))
      return "binding " + b.name + ": descriptors of kind " + std::string(descriptor_kind_name(b.kind)) +
             " are not supported";
    DescriptorBinding d{b.set,    b.binding, b.kind, b.count, stage_bit(stage), b.name, b.block_size.value_or(0),
                        b.members};
    if (d.set >= kMaxSets || d.binding >= kMaxBinding || d.count == 0 || d.count > kMaxArray)
      return "binding " + d.name + ": set " + std::to_string(d.set) + " binding " + std::to_string(d.binding) +
             " count " + std::to_string(d.count) + " is out of range";
    const auto key = std::make_pair(d.set, d.binding);
    if (auto it = index.find(key); it != index.end()) {
      DescriptorBinding& known = out.bindings[it->second];
      if (known.kind != d.kind || known.count != d.count)
        return "set " + std::to_string(d.set) + " binding " + std::to_string(d.binding) + " is " +
               std::string(descriptor_kind_name(known.kind)) + " " + known.name + " in one stage and " +
               std::string(descriptor_kind_name(d.kind)) + " " + d.name + " in another";
      known.stages |= d.stages;
      known.block_size = std::max(known.block_size, d.block_size);
      continue;
    }
    index.emplace(key, out.bindings.size());
    out.set_count = std::max(out.set_count, d.set + 1);
    out.bindings.push_back(std::move(d));
  }
  for (const PushConstantBlock& p : r.push_constants) {
    if (p.size > kMaxPushConstants || p.size % 4 != 0)
      return "push constants of " + std::to_string(p.size) + " bytes (a multiple of 4, at most " +
             std::to_string(kMaxPushConstants) + ")";
    if (p.size > out.push_constant_size) out.push_constant_members = p.members;
    out.push_constant_size = std::max(out.push_constant_size, p.size);
    out.push_constant_stages |= stage_bit(stage);
  }
  if (stage == ShaderStage::kVertex)
    out.vertex_inputs.insert(out.vertex_inputs.end(), r.inputs.begin(), r.inputs.end());
  if (stage == ShaderStage::kFragment) out.fragment_outputs = std::uint32_t(r.outputs.size());
  if (stage == ShaderStage::kCompute) {
    if (!r.local_size) return std::string("a compute stage without a work-group size");
    out.local_size = *r.local_size;
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
  for (const StageRecord& s : variant.stages)
    if (!stage_of(s.stage))
      return make_error(where + ": stage " + s.stage +
                        " is not supported (vert, frag, comp, task, mesh and the ray-tracing stages)");
  auto kind = pipeline_of(variant);
  if (!kind) return make_error(where + ": " + kind.error().message);
  out.kind = *kind;
  for (const StageRecord& s : variant.stages)
    if (const auto problem = add_stage(*stage_of(s.stage), s.reflection, out, index))
      return make_error(where + ": " + s.stage + ": " + *problem);
  if (out.kind == PipelineKind::kRayTracing) out.groups = ray_tracing_groups(variant);
  std::sort(out.bindings.begin(), out.bindings.end(),
            [](const auto& a, const auto& b) { return std::tie(a.set, a.binding) < std::tie(b.set, b.binding); });
  std::sort(out.vertex_inputs.begin(), out.vertex_inputs.end(),
            [](const auto& a, const auto& b) { return a.location < b.location; });
  return out;
}

}  // namespace kiln::runtime
