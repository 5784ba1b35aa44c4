#include "kiln/shadercache/reflection.h"

#include <spirv_cross/spirv_cross.hpp>
#include <spirv_cross/spirv_glsl.hpp>
#include <spirv_cross/spirv_hlsl.hpp>
#include <spirv_cross/spirv_msl.hpp>

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
    case SPIRType::Int: scalar = "int"; prefix = "i"; break;
    case SPIRType::UInt: scalar = "uint"; prefix = "u"; break;
    case SPIRType::Boolean: scalar = "bool"; prefix = "b"; break;
    case SPIRType::Double: scalar = "double"; prefix = "d"; break;
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

void add_bindings(const Compiler& c, const spirv_cross::SmallVector<spirv_cross::Resource>& resources,
                  const char* kind, json& out) {
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
      spec.push_back({{"id", sc.constant_id}, {"name", c.get_name(sc.id)},
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

std::optional<Backend> parse_backend(std::string_view text) {
  if (text == "spirv") return Backend::kSpirv;
  if (text == "glsl") return Backend::kGlsl;
  if (text == "essl") return Backend::kEssl;
  if (text == "hlsl") return Backend::kHlsl;
  if (text == "msl") return Backend::kMsl;
  return std::nullopt;
}

std::string_view backend_name(Backend b) {
  static constexpr std::string_view names[] = {"spirv", "glsl", "essl", "hlsl", "msl"};
  return names[static_cast<int>(b)];
}

namespace {

enum class ResourceClass { kUniformBuffer, kStorageBuffer, kTexture, kImage, kSampler, kNone };

ResourceClass glsl_class(const std::string& kind) {
  if (kind == "uniform_buffer") return ResourceClass::kUniformBuffer;
  if (kind == "storage_buffer") return ResourceClass::kStorageBuffer;
  if (kind == "combined_image_sampler" || kind == "sampled_image") return ResourceClass::kTexture;
  if (kind == "storage_image") return ResourceClass::kImage;
  if (kind == "sampler") return ResourceClass::kSampler;
  return ResourceClass::kNone;
}

// GLSL/ESSL: the Binding decoration of every resource becomes its slot, its set 0; MSL: explicit
// resource bindings for every resource and the push constants.
void apply_glsl_bindings(spirv_cross::Compiler& c, const BindingMap& map) {
  const auto resources = c.get_shader_resources();
  for (const auto* list : {&resources.uniform_buffers, &resources.storage_buffers, &resources.sampled_images,
                           &resources.separate_images, &resources.separate_samplers, &resources.storage_images})
    for (const auto& r : *list) {
      const auto key = std::make_pair(c.get_decoration(r.id, spv::DecorationDescriptorSet), c.get_decoration(r.id, spv::DecorationBinding));
      auto it = map.descriptors.find(key);
      if (it == map.descriptors.end()) continue;
      c.set_decoration(r.id, spv::DecorationDescriptorSet, 0);
      c.set_decoration(r.id, spv::DecorationBinding, it->second.binding);
    }
}

void apply_msl_bindings(spirv_cross::CompilerMSL& msl, const BindingMap& map) {
  const spv::ExecutionModel stage = msl.get_execution_model();
  for (const auto& [key, b] : map.descriptors) {
    spirv_cross::MSLResourceBinding binding;
    binding.stage = stage;
    binding.desc_set = key.first;
    binding.binding = key.second;
    binding.msl_buffer = b.msl_buffer;
    binding.msl_texture = b.msl_texture;
    binding.msl_sampler = b.msl_sampler;
    msl.add_msl_resource_binding(binding);
  }
  spirv_cross::MSLResourceBinding push;
  push.stage = stage;
  push.desc_set = spirv_cross::kPushConstDescSet;
  push.binding = spirv_cross::kPushConstBinding;
  push.msl_buffer = map.msl_push_constant_buffer;
  msl.add_msl_resource_binding(push);
}

}  // namespace

BindingMap map_bindings(const std::vector<json>& stage_reflections, Backend backend) {
  BindingMap map;
  if (backend == Backend::kSpirv || backend == Backend::kHlsl) return map;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> kinds;  // union over the stages, sorted
  for (const auto& r : stage_reflections)
    for (const auto& b : r.at("bindings"))
      kinds.emplace(std::make_pair(b.at("set").get<std::uint32_t>(), b.at("binding").get<std::uint32_t>()),
                    b.at("kind").get<std::string>());
  std::map<ResourceClass, std::uint32_t> next;
  std::uint32_t buffers = 0, textures = 0, samplers = 0;
  for (const auto& [key, kind] : kinds) {
    BackendBinding b;
    b.binding = next[glsl_class(kind)]++;
    if (kind == "uniform_buffer" || kind == "storage_buffer") b.msl_buffer = buffers++;
    if (kind == "combined_image_sampler" || kind == "sampled_image" || kind == "storage_image" || kind == "input_attachment")
      b.msl_texture = textures++;
    if (kind == "combined_image_sampler" || kind == "sampler") b.msl_sampler = samplers++;
    map.descriptors[key] = b;
  }
  map.msl_push_constant_buffer = buffers;
  return map;
}

void record_backend_bindings(json& reflection, const BindingMap& map, Backend backend) {
  if (backend == Backend::kSpirv) return;
  const std::string name(backend_name(backend));
  for (auto& b : reflection["bindings"]) {
    const auto set = b["set"].get<std::uint32_t>(), binding = b["binding"].get<std::uint32_t>();
    if (backend == Backend::kHlsl) {
      b[name] = {{"register", binding}, {"space", set}};
      continue;
    }
    auto it = map.descriptors.find({set, binding});
    if (it == map.descriptors.end()) continue;
    if (backend == Backend::kMsl) {
      const std::string kind = b["kind"].get<std::string>();
      json m = json::object();
      if (kind == "uniform_buffer" || kind == "storage_buffer") m["buffer"] = it->second.msl_buffer;
      if (kind == "combined_image_sampler" || kind == "sampled_image" || kind == "storage_image" || kind == "input_attachment")
        m["texture"] = it->second.msl_texture;
      if (kind == "combined_image_sampler" || kind == "sampler") m["sampler"] = it->second.msl_sampler;
      b[name] = m;
    } else if (glsl_class(b["kind"].get<std::string>()) != ResourceClass::kNone) {
      b[name] = {{"binding", it->second.binding}};
    }
  }
  if (backend == Backend::kMsl)
    for (auto& p : reflection["push_constants"]) p[name] = {{"buffer", map.msl_push_constant_buffer}};
}

Result<std::string> cross_compile(const std::vector<std::uint32_t>& spirv, Backend backend, const BindingMap& map) {
  try {
    switch (backend) {
      case Backend::kSpirv: return std::string();
      case Backend::kGlsl:
      case Backend::kEssl: {
        spirv_cross::CompilerGLSL glsl(spirv);
        auto options = glsl.get_common_options();
        options.es = backend == Backend::kEssl;
        options.version = options.es ? 310 : 450;
        options.vulkan_semantics = false;
        glsl.set_common_options(options);
        apply_glsl_bindings(glsl, map);
        return glsl.compile();
      }
      case Backend::kHlsl: {
        spirv_cross::CompilerHLSL hlsl(spirv);
        auto options = hlsl.get_hlsl_options();
        options.shader_model = 51;  // register spaces: a descriptor set is a space
        hlsl.set_hlsl_options(options);
        return hlsl.compile();
      }
      case Backend::kMsl: {
        spirv_cross::CompilerMSL msl(spirv);
        apply_msl_bindings(msl, map);
        return msl.compile();
      }
    }
    return make_error("unknown backend");
  } catch (const std::exception& e) {
    return make_error(std::string("SPIRV-Cross ") + std::string(backend_name(backend)) + " backend failed: " + e.what());
  }
}

std::string spirv_cross_version() { return std::string("SPIRV-Cross ") + KILN_SPIRV_CROSS_VERSION; }

}  // namespace kiln::shadercache
