#include "kiln/shadercache/reflection.h"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <tuple>

#include "spirv_cross_input.h"

namespace kiln::shadercache {
namespace {

using runtime::DescriptorKind;
using spirv_cross::Compiler;
using spirv_cross::SPIRType;

// GLSL spelling: float, vec3, ivec2, uvec4, bvec2, mat4, mat3x4, double, dvec2; "pointer".
std::string type_text(const SPIRType& t) {
  // A device address (buffer_reference): 8 bytes, not followed. (Interface variables are pointers
  // too, to their Input or Output storage: their type is what they point to.)
  if (t.pointer && t.storage == spv::StorageClassPhysicalStorageBuffer) return "pointer";
  std::string scalar, prefix;
  switch (t.basetype) {
    case SPIRType::Float: scalar = "float"; break;
    case SPIRType::Int:
      scalar = "int";
      prefix = "i";
      break;
    case SPIRType::UInt:
      scalar = "uint";
      prefix = "u";
      break;
    case SPIRType::Boolean:
      scalar = "bool";
      prefix = "b";
      break;
    case SPIRType::Double:
      scalar = "double";
      prefix = "d";
      break;
    case SPIRType::Struct: return "struct";
    default: return "other";
  }
  if (t.columns > 1)
    return prefix + "mat" + std::to_string(t.columns) + (t.columns == t.vecsize ? "" : "x" + std::to_string(t.vecsize));
  if (t.vecsize > 1) return prefix + "vec" + std::to_string(t.vecsize);
  return scalar;
}

std::uint32_t array_size(const SPIRType& t) {
  std::uint32_t n = 1;
  for (std::uint32_t d : t.array) n *= std::max<std::uint32_t>(d, 1);  // 0 = runtime-sized, counted as 1
  return n;
}

// The members of a block with their offsets as laid out (std140/std430 from the decorations):
// what a material's parameters are checked against and written at.
std::vector<runtime::BlockMember> block_members(const Compiler& c, const SPIRType& block) {
  std::vector<runtime::BlockMember> out;
  for (std::uint32_t i = 0; i < block.member_types.size(); ++i) {
    const SPIRType& t = c.get_type(block.member_types[i]);
    runtime::BlockMember m{c.get_member_name(block.self, i),
                           type_text(t),
                           t.vecsize,
                           t.columns,
                           t.array.empty() ? 0 : array_size(t),
                           c.type_struct_member_offset(block, i),
                           std::uint32_t(c.get_declared_struct_member_size(block, i))};
    if (!t.array.empty()) m.array_stride = c.type_struct_member_array_stride(block, i);
    if (t.columns > 1) m.matrix_stride = c.type_struct_member_matrix_stride(block, i);
    out.push_back(std::move(m));
  }
  return out;
}

void add_bindings(const Compiler& c, const spirv_cross::SmallVector<spirv_cross::Resource>& resources,
                  DescriptorKind kind, std::vector<runtime::ReflectedBinding>& out) {
  for (const auto& r : resources) {
    runtime::ReflectedBinding b{
        c.get_decoration(r.id, spv::DecorationDescriptorSet), c.get_decoration(r.id, spv::DecorationBinding),
        r.name.empty() ? c.get_name(r.base_type_id) : r.name, kind, array_size(c.get_type(r.type_id))};
    const SPIRType& base = c.get_type(r.base_type_id);
    if (base.basetype == SPIRType::Struct) {
      b.block_size = std::uint32_t(c.get_declared_struct_size(base));
      b.members = block_members(c, base);
    }
    out.push_back(std::move(b));
  }
}

std::vector<runtime::InterfaceVariable> interface_vars(
    const Compiler& c, const spirv_cross::SmallVector<spirv_cross::Resource>& resources) {
  std::vector<runtime::InterfaceVariable> out;
  for (const auto& r : resources)
    out.push_back({c.get_decoration(r.id, spv::DecorationLocation), r.name, type_text(c.get_type(r.type_id)),
                   c.has_decoration(r.id, spv::DecorationPerPrimitiveEXT)});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.location < b.location; });
  return out;
}

// get_shader_resources() lists neither ray-tracing variables nor the task payload, and
// get_active_interface_variables() only inputs and outputs: this reads the module's variables.
class VariableReader : public Compiler {
 public:
  using Compiler::Compiler;
  // Every module-scope variable, in id order.
  std::vector<spirv_cross::VariableID> global_variables() const {
    std::vector<spirv_cross::VariableID> out;
    ir.for_each_typed_id<spirv_cross::SPIRVariable>([&](std::uint32_t id, const spirv_cross::SPIRVariable& v) {
      if (v.storage != spv::StorageClassFunction) out.push_back(id);
    });
    return out;
  }
};

// What a variable points to (interface variables are pointers to their storage).
const SPIRType& pointee(const Compiler& c, const SPIRType& t) { return t.pointer ? c.get_type(t.parent_type) : t; }

bool has_offsets(const Compiler& c, const SPIRType& s) {
  for (std::uint32_t i = 0; i < s.member_types.size(); ++i)
    if (!c.has_member_decoration(s.self, i, spv::DecorationOffset)) return false;
  return true;
}

// A value's bytes: as laid out where the struct has offsets (a shader record block), tightly packed
// otherwise (payloads, hit attributes and task payloads have no explicit layout).
std::uint32_t value_size(const Compiler& c, const SPIRType& t) {
  std::uint32_t one = 0;
  if (t.basetype == SPIRType::Struct) {
    const SPIRType& s = c.get_type(t.self);
    if (has_offsets(c, s)) {
      one = std::uint32_t(c.get_declared_struct_size(s));
    } else {
      for (std::uint32_t member : s.member_types) one += value_size(c, c.get_type(member));
    }
  } else {
    one = t.width / 8 * t.vecsize * t.columns;
  }
  return one * array_size(t);
}

std::string value_type(const Compiler& c, const SPIRType& t) {
  if (t.basetype != SPIRType::Struct) return type_text(t);
  const std::string& name = c.get_name(t.self);
  return name.empty() ? "struct" : name;
}

// A struct variable: its members where it has a layout, packed in order where it has none.
runtime::StructVariable struct_variable(const Compiler& c, const std::string& name, const SPIRType& t) {
  runtime::StructVariable out{name, value_type(c, t), value_size(c, t), {}};
  if (t.basetype != SPIRType::Struct) return out;
  const SPIRType& s = c.get_type(t.self);
  if (has_offsets(c, s)) {
    out.members = block_members(c, s);
    return out;
  }
  std::uint32_t offset = 0;
  for (std::uint32_t i = 0; i < s.member_types.size(); ++i) {
    const SPIRType& m = c.get_type(s.member_types[i]);
    const std::uint32_t size = value_size(c, m);
    out.members.push_back({c.get_member_name(s.self, i), type_text(m), m.vecsize, m.columns,
                           m.array.empty() ? 0 : array_size(m), offset, size});
    offset += size;
  }
  return out;
}

std::optional<runtime::RayVariableKind> ray_variable_kind(spv::StorageClass storage) {
  using K = runtime::RayVariableKind;
  switch (storage) {
    case spv::StorageClassRayPayloadKHR: return K::kRayPayload;
    case spv::StorageClassIncomingRayPayloadKHR: return K::kIncomingRayPayload;
    case spv::StorageClassHitAttributeKHR: return K::kHitAttribute;
    case spv::StorageClassCallableDataKHR: return K::kCallableData;
    case spv::StorageClassIncomingCallableDataKHR: return K::kIncomingCallableData;
    default: return std::nullopt;
  }
}

// Ray-tracing variables and the task payload: interface variables of storage classes that
// get_shader_resources() does not list.
void add_stage_variables(const VariableReader& c, runtime::StageReflection& out) {
  for (spirv_cross::VariableID id : c.global_variables()) {
    const spv::StorageClass storage = c.get_storage_class(id);
    const SPIRType& t = pointee(c, c.get_type_from_variable(id));
    if (storage == spv::StorageClassTaskPayloadWorkgroupEXT) {
      out.task_payload = struct_variable(c, c.get_name(id), t);
      continue;
    }
    const auto kind = ray_variable_kind(storage);
    if (!kind) continue;
    out.ray_variables.push_back({*kind, c.get_name(id), value_type(c, t), value_size(c, t)});
  }
  std::sort(out.ray_variables.begin(), out.ray_variables.end(),
            [](const auto& a, const auto& b) { return std::tie(a.kind, a.name) < std::tie(b.kind, b.name); });
}

bool has_work_groups(spv::ExecutionModel model) {
  return model == spv::ExecutionModelGLCompute || model == spv::ExecutionModelTaskEXT ||
         model == spv::ExecutionModelMeshEXT || model == spv::ExecutionModelTaskNV ||
         model == spv::ExecutionModelMeshNV;
}

std::optional<runtime::MeshOutput> mesh_output(const Compiler& c, spv::ExecutionModel model) {
  if (model != spv::ExecutionModelMeshEXT && model != spv::ExecutionModelMeshNV) return std::nullopt;
  const auto& modes = c.get_execution_mode_bitset();
  runtime::MeshOutput out{c.get_execution_mode_argument(spv::ExecutionModeOutputVertices, 0),
                          c.get_execution_mode_argument(spv::ExecutionModeOutputPrimitivesEXT, 0), "triangles"};
  if (modes.get(spv::ExecutionModeOutputLinesEXT)) out.primitive = "lines";
  if (modes.get(spv::ExecutionModeOutputPoints)) out.primitive = "points";
  return out;
}

}  // namespace

Result<runtime::StageReflection> reflect_spirv(const std::vector<std::uint32_t>& spirv) {
  try {
    const CrossInput input = spirv_cross_input(spirv);
    VariableReader c(input.words);
    restore_held_names(c, input);
    const auto resources = c.get_shader_resources();
    runtime::StageReflection out;
    add_bindings(c, resources.uniform_buffers, DescriptorKind::kUniformBuffer, out.bindings);
    add_bindings(c, resources.storage_buffers, DescriptorKind::kStorageBuffer, out.bindings);
    add_bindings(c, resources.sampled_images, DescriptorKind::kCombinedImageSampler, out.bindings);
    add_bindings(c, resources.separate_images, DescriptorKind::kSampledImage, out.bindings);
    add_bindings(c, resources.separate_samplers, DescriptorKind::kSampler, out.bindings);
    add_bindings(c, resources.storage_images, DescriptorKind::kStorageImage, out.bindings);
    add_bindings(c, resources.subpass_inputs, DescriptorKind::kInputAttachment, out.bindings);
    add_bindings(c, resources.acceleration_structures, DescriptorKind::kAccelerationStructure, out.bindings);
    std::stable_sort(out.bindings.begin(), out.bindings.end(), [](const auto& a, const auto& b) {
      return std::tie(a.set, a.binding) < std::tie(b.set, b.binding);
    });

    for (const auto& r : resources.push_constant_buffers) {
      const SPIRType& block = c.get_type(r.base_type_id);
      runtime::PushConstantBlock p{r.name.empty() ? c.get_name(r.base_type_id) : r.name, c.get_name(r.base_type_id),
                                   std::uint32_t(c.get_declared_struct_size(block)), block_members(c, block)};
      for (const auto& range : c.get_active_buffer_ranges(r.id))
        p.ranges.push_back({range.index, std::uint32_t(range.offset), std::uint32_t(range.range)});
      out.push_constants.push_back(std::move(p));
    }

    for (const auto& sc : c.get_specialization_constants())
      out.specialization_constants.push_back(
          {sc.constant_id, c.get_name(sc.id), type_text(c.get_type(c.get_constant(sc.id).constant_type))});

    const auto entries = c.get_entry_points_and_stages();
    out.entry_point = entries.empty() ? "" : entries[0].name;
    out.inputs = interface_vars(c, resources.stage_inputs);
    out.outputs = interface_vars(c, resources.stage_outputs);
    if (!entries.empty() && has_work_groups(entries[0].execution_model))
      out.local_size = {c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 0),
                        c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 1),
                        c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 2)};
    if (!entries.empty()) out.mesh_output = mesh_output(c, entries[0].execution_model);
    add_stage_variables(c, out);
    for (const auto& r : resources.shader_record_buffers)
      out.shader_record =
          struct_variable(c, r.name.empty() ? c.get_name(r.base_type_id) : r.name, c.get_type(r.base_type_id));
    return out;
  } catch (const std::exception& e) {
    return make_error("SPIRV-Cross " + std::string(KILN_SPIRV_CROSS_VERSION) +
                      " cannot reflect it: " + spirv_cross_failure(spirv, e.what()));
  }
}

std::string spirv_cross_version() { return std::string("SPIRV-Cross ") + KILN_SPIRV_CROSS_VERSION; }

}  // namespace kiln::shadercache
