#pragma once
// The reflection of one compiled shader stage: what a pipeline layout, a material and a
// cross-compiling backend need to know of the stage's interface. The cook makes it from the
// SPIR-V (shadercache's reflect_spirv), packs and cache entries store it as JSON text
// (encode_reflection), and every reader takes the typed form from decode_reflection; nothing
// else spells the stored field names or the descriptor kinds. check_reflection compares a
// reflection with the SPIR-V it claims to describe.
//
// Thread-safety: plain values and pure functions.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::runtime {

// The stored form's version. A change to a field or to what it means bumps it; it is part of the
// stored JSON and of every cache namespace that keeps reflection.
inline constexpr std::uint32_t kReflectionFormat = 6;

// The one table of descriptor kinds: X(Name, stored name, takes a buffer slot, a texture slot, a
// sampler slot) — the slots a backend without descriptor sets (MSL) numbers apart.
#define KILN_DESCRIPTOR_KINDS(X)                                       \
  X(UniformBuffer, "uniform_buffer", true, false, false)               \
  X(StorageBuffer, "storage_buffer", true, false, false)               \
  X(CombinedImageSampler, "combined_image_sampler", false, true, true) \
  X(SampledImage, "sampled_image", false, true, false)                 \
  X(Sampler, "sampler", false, false, true)                            \
  X(StorageImage, "storage_image", false, true, false)                 \
  X(InputAttachment, "input_attachment", false, true, false)           \
  X(AccelerationStructure, "acceleration_structure", false, false, false)

enum class DescriptorKind : std::uint8_t {
#define KILN_DESCRIPTOR_KIND_ENUMERATOR(name, stored, buffer, texture, sampler) k##name,
  KILN_DESCRIPTOR_KINDS(KILN_DESCRIPTOR_KIND_ENUMERATOR)
#undef KILN_DESCRIPTOR_KIND_ENUMERATOR
};

// The stored name ("uniform_buffer", "combined_image_sampler", ...) and back.
std::string_view descriptor_kind_name(DescriptorKind kind);
std::optional<DescriptorKind> descriptor_kind_named(std::string_view name);
// What slots a descriptor takes where a backend numbers buffers, textures and samplers apart
// (MSL): a combined image sampler takes a texture and a sampler.
bool takes_buffer_slot(DescriptorKind kind);
bool takes_texture_slot(DescriptorKind kind);
bool takes_sampler_slot(DescriptorKind kind);

// The languages a variant is delivered in: SPIR-V, or a source SPIRV-Cross writes from it.
// X(Name, stored name); shadercache's cross_compile handles each (-Werror=switch).
#define KILN_BACKENDS(X) X(Spirv, "spirv") X(Glsl, "glsl") X(Essl, "essl") X(Hlsl, "hlsl") X(Msl, "msl")

enum class Backend : std::uint8_t {
#define KILN_BACKEND_ENUMERATOR(name, stored) k##name,
  KILN_BACKENDS(KILN_BACKEND_ENUMERATOR)
#undef KILN_BACKEND_ENUMERATOR
};
std::string_view backend_name(Backend backend);
std::optional<Backend> backend_named(std::string_view name);
std::string backend_names();  // every stored name, for messages: "spirv, glsl, ..."

// A member of a uniform, storage or push-constant block, where the variant's layout put it.
struct BlockMember {
  std::string name, type;  // "view_projection", "mat4"
  std::uint32_t components = 1, columns = 1;
  std::uint32_t count = 0;  // array length; 0 for a member that is not an array
  std::uint32_t offset = 0, size = 0;
  std::uint32_t array_stride = 0, matrix_stride = 0;  // 0 where the member has none
  bool operator==(const BlockMember&) const = default;
};

// Where a cross-compiling backend put a descriptor or the push constants: GLSL and ESSL a binding,
// MSL buffer, texture and sampler indices, HLSL a register in a space. Empty for SPIR-V.
struct BackendSlot {
  Backend backend = Backend::kSpirv;
  std::optional<std::uint32_t> binding, buffer, texture, sampler, register_index, space;
  bool operator==(const BackendSlot&) const = default;
};

struct ReflectedBinding {
  std::uint32_t set = 0, binding = 0;
  std::string name;
  DescriptorKind kind = DescriptorKind::kUniformBuffer;
  std::uint32_t count = 1;                  // array elements (a runtime-sized array counts 1)
  std::optional<std::uint32_t> block_size;  // buffers: the block's declared size
  std::vector<BlockMember> members;         // buffers
  BackendSlot slot;
  bool operator==(const ReflectedBinding&) const = default;
};

struct PushConstantRange {
  std::uint32_t member = 0, offset = 0, size = 0;
  bool operator==(const PushConstantRange&) const = default;
};

struct PushConstantBlock {
  std::string name;   // the variable's name, or the block's where the variable has none
  std::string block;  // the block type's name
  std::uint32_t size = 0;
  std::vector<BlockMember> members;
  std::vector<PushConstantRange> ranges;  // the parts the stage reads
  BackendSlot slot;
  bool operator==(const PushConstantBlock&) const = default;
};

// A stage input or output that is not a built-in.
struct InterfaceVariable {
  std::uint32_t location = 0;
  std::string name;
  std::string type;            // "vec3", "uvec4", ...
  bool per_primitive = false;  // a mesh stage's output (a fragment stage's input) per primitive, not per vertex
  bool operator==(const InterfaceVariable&) const = default;
};

// The variables ray-tracing stages pass each other (no descriptors): X(Name, stored name).
#define KILN_RAY_VARIABLE_KINDS(X)              \
  X(RayPayload, "ray_payload")                  \
  X(IncomingRayPayload, "incoming_ray_payload") \
  X(HitAttribute, "hit_attribute")              \
  X(CallableData, "callable_data")              \
  X(IncomingCallableData, "incoming_callable_data")

enum class RayVariableKind : std::uint8_t {
#define KILN_RAY_VARIABLE_ENUMERATOR(name, stored) k##name,
  KILN_RAY_VARIABLE_KINDS(KILN_RAY_VARIABLE_ENUMERATOR)
#undef KILN_RAY_VARIABLE_ENUMERATOR
};
std::string_view ray_variable_kind_name(RayVariableKind kind);
std::optional<RayVariableKind> ray_variable_kind_named(std::string_view name);

// SPIR-V passes these by the variable itself (a GLSL `location` does not reach it), so a variable is
// known by its kind, name and type.
struct RayVariable {
  RayVariableKind kind = RayVariableKind::kRayPayload;
  std::string name, type;  // type: "vec3", or a struct's name
  std::uint32_t size = 0;  // bytes
  bool operator==(const RayVariable&) const = default;
};

// A block of the stage's shader-binding-table record (shaderRecordEXT), or the payload a task stage
// hands its mesh stage (taskPayloadSharedEXT): a name, a type and its members as laid out.
struct StructVariable {
  std::string name, type;
  std::uint32_t size = 0;
  std::vector<BlockMember> members;
  bool operator==(const StructVariable&) const = default;
};

// What a mesh stage emits per work group.
struct MeshOutput {
  std::uint32_t max_vertices = 0, max_primitives = 0;
  std::string primitive;  // "triangles", "lines" or "points"
  bool operator==(const MeshOutput&) const = default;
};

struct SpecializationConstant {
  std::uint32_t id = 0;
  std::string name, type;
  bool operator==(const SpecializationConstant&) const = default;
};

struct StageReflection {
  std::string entry_point;
  std::vector<ReflectedBinding> bindings;  // sorted by (set, binding)
  std::vector<PushConstantBlock> push_constants;
  std::vector<InterfaceVariable> inputs, outputs;  // sorted by location
  std::vector<SpecializationConstant> specialization_constants;
  std::optional<std::array<std::uint32_t, 3>> local_size;  // compute, task and mesh stages
  std::vector<RayVariable> ray_variables;                  // ray-tracing stages: by kind, then name
  std::optional<StructVariable> shader_record;             // ray-tracing stages
  std::optional<StructVariable> task_payload;              // task stages (written), mesh stages (read)
  std::optional<MeshOutput> mesh_output;                   // mesh stages
  // Why the stage has no reflection (SPIRV-Cross could not read the module); empty when it has one.
  // An unavailable reflection describes nothing: no layout can be made from it and no material
  // checked against it.
  std::string unavailable;
  bool operator==(const StageReflection&) const = default;
};

// The stored form: a JSON object with "format": kReflectionFormat.
std::string encode_reflection(const StageReflection& reflection);
// The typed form of what encode_reflection wrote. Anything else (not JSON, another format, a
// missing or mistyped field, an unknown descriptor kind) is an error starting with `where` and
// naming the field by its JSON pointer.
Result<StageReflection> decode_reflection(std::string_view text, const std::string& where);

// `reflection` checked against the SPIR-V `words` it describes (an unavailable one only for being empty): the same descriptor bindings (set,
// binding, kind, count, block size), push-constant blocks and input locations and types. A layout
// made from reflection that disagrees would hand the driver a pipeline that reads what no
// descriptor provides. The error says what differs; the caller names the stage.
Status check_reflection(const StageReflection& reflection, std::span<const std::uint32_t> words);

}  // namespace kiln::runtime
