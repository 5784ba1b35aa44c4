#include "kiln/shadercache/reflection.h"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>

namespace kiln::shadercache {
namespace {

using nlohmann::json;
using spirv_cross::Compiler;
using spirv_cross::SPIRType;

// GLSL spelling: float, vec3, ivec2, uvec4, bvec2, mat4, mat3x4, double, dvec2.
std::string type_text(const SPIRType& t) {
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
json block_members(const Compiler& c, const SPIRType& block) {
  json out = json::array();
  for (std::uint32_t i = 0; i < block.member_types.size(); ++i) {
    const SPIRType& t = c.get_type(block.member_types[i]);
    json m = {{"name", c.get_member_name(block.self, i)},
              {"type", type_text(t)},
              {"components", t.vecsize},
              {"columns", t.columns},
              {"count", t.array.empty() ? 0 : array_size(t)},
              {"offset", c.type_struct_member_offset(block, i)},
              {"size", c.get_declared_struct_member_size(block, i)}};
    if (!t.array.empty()) m["array_stride"] = c.type_struct_member_array_stride(block, i);
    if (t.columns > 1) m["matrix_stride"] = c.type_struct_member_matrix_stride(block, i);
    out.push_back(std::move(m));
  }
  return out;
}

void add_bindings(const Compiler& c, const spirv_cross::SmallVector<spirv_cross::Resource>& resources, const char* kind,
                  json& out) {
  for (const auto& r : resources) {
    const SPIRType& type = c.get_type(r.type_id);
    json b = {{"set", c.get_decoration(r.id, spv::DecorationDescriptorSet)},
              {"binding", c.get_decoration(r.id, spv::DecorationBinding)},
              {"name", r.name.empty() ? c.get_name(r.base_type_id) : r.name},
              {"kind", kind},
              {"count", array_size(type)}};
    const SPIRType& base = c.get_type(r.base_type_id);
    if (base.basetype == SPIRType::Struct) {
      b["block_size"] = c.get_declared_struct_size(base);
      b["members"] = block_members(c, base);
    }
    out.push_back(std::move(b));
  }
}

json interface_vars(const Compiler& c, const spirv_cross::SmallVector<spirv_cross::Resource>& resources) {
  json out = json::array();
  for (const auto& r : resources) {
    out.push_back({{"location", c.get_decoration(r.id, spv::DecorationLocation)},
                   {"name", r.name},
                   {"type", type_text(c.get_type(r.type_id))}});
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["location"] < b["location"]; });
  return out;
}

}  // namespace

Result<json> reflect_spirv(const std::vector<std::uint32_t>& spirv) {
  try {
    Compiler c(spirv);
    const auto resources = c.get_shader_resources();
    json bindings = json::array();
    add_bindings(c, resources.uniform_buffers, "uniform_buffer", bindings);
    add_bindings(c, resources.storage_buffers, "storage_buffer", bindings);
    add_bindings(c, resources.sampled_images, "combined_image_sampler", bindings);
    add_bindings(c, resources.separate_images, "sampled_image", bindings);
    add_bindings(c, resources.separate_samplers, "sampler", bindings);
    add_bindings(c, resources.storage_images, "storage_image", bindings);
    add_bindings(c, resources.subpass_inputs, "input_attachment", bindings);
    std::sort(bindings.begin(), bindings.end(), [](const json& a, const json& b) {
      return std::make_pair(a["set"].get<int>(), a["binding"].get<int>()) <
             std::make_pair(b["set"].get<int>(), b["binding"].get<int>());
    });

    json push = json::array();
    for (const auto& r : resources.push_constant_buffers) {
      json ranges = json::array();
      for (const auto& range : c.get_active_buffer_ranges(r.id))
        ranges.push_back({{"member", range.index}, {"offset", range.offset}, {"size", range.range}});
      const SPIRType& block = c.get_type(r.base_type_id);
      push.push_back({{"name", r.name.empty() ? c.get_name(r.base_type_id) : r.name},
                      {"block", c.get_name(r.base_type_id)},
                      {"size", c.get_declared_struct_size(block)},
                      {"members", block_members(c, block)},
                      {"ranges", ranges}});
    }

    json spec = json::array();
    for (const auto& sc : c.get_specialization_constants())
      spec.push_back({{"id", sc.constant_id},
                      {"name", c.get_name(sc.id)},
                      {"type", type_text(c.get_type(c.get_constant(sc.id).constant_type))}});

    const auto entries = c.get_entry_points_and_stages();
    json out = {{"entry_point", entries.empty() ? "" : entries[0].name},
                {"bindings", bindings},
                {"push_constants", push},
                {"inputs", interface_vars(c, resources.stage_inputs)},
                {"outputs", interface_vars(c, resources.stage_outputs)},
                {"specialization_constants", spec}};
    if (!entries.empty() && entries[0].execution_model == spv::ExecutionModelGLCompute) {
      out["local_size"] = {c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 0),
                           c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 1),
                           c.get_execution_mode_argument(spv::ExecutionModeLocalSize, 2)};
    }
    return out;
  } catch (const std::exception& e) {
    return make_error(std::string("SPIRV-Cross reflection failed: ") + e.what());
  }
}

std::string spirv_cross_version() { return std::string("SPIRV-Cross ") + KILN_SPIRV_CROSS_VERSION; }

}  // namespace kiln::shadercache
