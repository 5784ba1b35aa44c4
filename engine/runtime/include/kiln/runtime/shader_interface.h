#pragma once
// What a pipeline needs to know of its shaders, from the reflection the cook stored with each
// variant's stages (never from hand-written tables): the descriptor bindings of every set with the stages
// that use them, the push-constant range, the vertex inputs, the fragment outputs and a compute
// shader's work-group size. No graphics API types: a renderer makes its objects from this (Kiln's
// Vulkan renderer in engine/render).
//
// Thread-safety: plain values and pure functions.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/reflection.h"
#include "kiln/runtime/shader_stage.h"
#include "kiln/runtime/variant_record.h"

namespace kiln::runtime {

struct DescriptorBinding {
  std::uint32_t set = 0, binding = 0;
  DescriptorKind kind = DescriptorKind::kUniformBuffer;
  std::uint32_t count = 1;
  StageMask stages = 0;
  std::string name;
  std::uint32_t block_size = 0;      // uniform and storage buffers: the block's declared size
  std::vector<BlockMember> members;  // uniform and storage buffers
};

using VertexInput = InterfaceVariable;

// One shader group of a ray-tracing pipeline, as Vulkan takes it: a general group (a ray
// generation, miss or callable stage) or a hit group of closest-hit, any-hit and (procedural)
// intersection stages. Stages are indices into the variant's stages; kNone where a group has none.
struct RayTracingGroup {
  enum class Type : std::uint8_t { kGeneral, kTriangles, kProcedural };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  Type type = Type::kGeneral;
  std::uint32_t general = kNone, closest_hit = kNone, any_hit = kNone, intersection = kNone;
  bool operator==(const RayTracingGroup&) const = default;
};

struct ShaderInterface {
  // The pipeline the stages make: vertex (+ fragment), compute alone, task? + mesh (+ fragment), or
  // ray tracing: a set (a ray generation stage with miss, hit and callable stages), or one hit
  // group, miss or callable stage to add to a set.
  PipelineKind kind = PipelineKind::kGraphics;
  std::vector<DescriptorBinding> bindings;  // sorted by (set, binding); one entry per binding
  std::uint32_t set_count = 0;              // highest set used + 1
  std::uint32_t push_constant_size = 0;     // one range from 0 over every stage that uses push constants
  StageMask push_constant_stages = 0;
  std::vector<BlockMember> push_constant_members;
  std::vector<VertexInput> vertex_inputs;  // by location
  std::uint32_t fragment_outputs = 0;      // colour attachments the fragment stage writes
  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  // A ray-tracing variant's shader groups in shader-binding-table order: ray generation, miss, the
  // hit group (its rchit, rahit and rint), callable — those it has. A variant of hit stages alone
  // is one hit group, of a miss or callable stage alone one general group: what an engine adds to
  // a set's pipeline, by the variant's shader id, for the materials that use it.
  std::vector<RayTracingGroup> groups;

  const DescriptorBinding* binding(std::uint32_t set, std::uint32_t binding) const;
  const DescriptorBinding* binding_named(std::string_view name) const;  // by block or variable name
};

// The interface of a variant's stages together. Errors start with `where` (the pack and the
// variant): a stage it does not know or describe (tessellation and geometry), stages that make no
// one pipeline, a binding two stages declare differently, a descriptor kind no renderer binds, a set
// or array past the limits.
Result<ShaderInterface> shader_interface(const runtime::VariantRecord& variant, const std::string& where);

// The pipeline a variant's stages make, or what is wrong with them together: known before the
// interface is read, so that a renderer can refuse a kind it cannot build by name.
Result<PipelineKind> pipeline_of(const runtime::VariantRecord& variant);

}  // namespace kiln::runtime
