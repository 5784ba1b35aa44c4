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
    out.push_back({c.get_decoration(r.id, spv::DecorationLocation), r.name, type_text(c.get_type(r.type_id))});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.location < b.location; });
  return out;
}

}  // namespace

Result<runtime::StageReflection> reflect_spirv(const std::vector<std::uint32_t>& spirv) {
  try {
    const CrossInput input = spirv_cross_input(spirv);
    Compiler c(input.words);
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
    if (!entries.empty() && entries[0].execution_model == spv::ExecutionModelGLCompute)
      out.local_size = {c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 0),
                        c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 1),
                        c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 2)};
    return out;
  } catch (const std::exception& e) {
    return make_error("SPIRV-Cross " + std::string(KILN_SPIRV_CROSS_VERSION) +
                      " cannot reflect it: " + spirv_cross_failure(spirv, e.what()));
  }
}

std::string spirv_cross_version() { return std::string("SPIRV-Cross ") + KILN_SPIRV_CROSS_VERSION; }

}  // namespace kiln::shadercache
