#include "kiln/shadercache/backends.h"

#include <spirv_cross/spirv_cross.hpp>
#include <spirv_cross/spirv_glsl.hpp>
#include <spirv_cross/spirv_hlsl.hpp>
#include <spirv_cross/spirv_msl.hpp>

#include <algorithm>

#include "kiln/shadercache/reflection.h"
#include "spirv_cross_input.h"

namespace kiln::shadercache {
using runtime::DescriptorKind;

namespace {

enum class ResourceClass { kUniformBuffer, kStorageBuffer, kTexture, kImage, kSampler, kNone };

ResourceClass glsl_class(DescriptorKind kind) {
  switch (kind) {
    case DescriptorKind::kUniformBuffer: return ResourceClass::kUniformBuffer;
    case DescriptorKind::kStorageBuffer: return ResourceClass::kStorageBuffer;
    case DescriptorKind::kCombinedImageSampler:
    case DescriptorKind::kSampledImage: return ResourceClass::kTexture;
    case DescriptorKind::kStorageImage: return ResourceClass::kImage;
    case DescriptorKind::kSampler: return ResourceClass::kSampler;
    case DescriptorKind::kInputAttachment:
    case DescriptorKind::kAccelerationStructure: return ResourceClass::kNone;
  }
  return ResourceClass::kNone;
}

// GLSL/ESSL: the Binding decoration of every resource becomes its slot, its set 0; MSL: explicit
// resource bindings for every resource and the push constants.
void apply_glsl_bindings(spirv_cross::Compiler& c, const BindingMap& map) {
  const auto resources = c.get_shader_resources();
  for (const auto* list : {&resources.uniform_buffers, &resources.storage_buffers, &resources.sampled_images,
                           &resources.separate_images, &resources.separate_samplers, &resources.storage_images})
    for (const auto& r : *list) {
      const auto key = std::make_pair(c.get_decoration(r.id, spv::DecorationDescriptorSet),
                                      c.get_decoration(r.id, spv::DecorationBinding));
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

// Stages SPIRV-Cross has no writer for in a backend, refused before it writes text no compiler
// takes: its MSL writer names a geometry, object (task), mesh or ray-tracing function `unknown`,
// and its HLSL writer has no amplification (task) or ray-tracing shaders. Its HLSL mesh shaders
// are shader model 6.5's; GLSL and ESSL without Vulkan semantics are refused by SPIRV-Cross itself.
std::optional<std::string> unwritable_stage(Backend backend, spv::ExecutionModel model) {
  const char* what = nullptr;
  switch (model) {
    case spv::ExecutionModelGeometry:
      what = backend == Backend::kMsl ? "a geometry stage (Metal has none)" : nullptr;
      break;
    case spv::ExecutionModelTaskEXT:
    case spv::ExecutionModelTaskNV:
      what = backend == Backend::kMsl    ? "a task stage (a Metal object function)"
             : backend == Backend::kHlsl ? "a task stage (an HLSL amplification shader)"
                                         : nullptr;
      break;
    case spv::ExecutionModelMeshEXT:
    case spv::ExecutionModelMeshNV:
      what = backend == Backend::kMsl ? "a mesh stage (a Metal mesh function)" : nullptr;
      break;
    case spv::ExecutionModelRayGenerationKHR:
    case spv::ExecutionModelIntersectionKHR:
    case spv::ExecutionModelAnyHitKHR:
    case spv::ExecutionModelClosestHitKHR:
    case spv::ExecutionModelMissKHR:
    case spv::ExecutionModelCallableKHR:
      what = backend == Backend::kMsl || backend == Backend::kHlsl ? "a ray-tracing stage" : nullptr;
      break;
    default: break;
  }
  if (!what) return std::nullopt;
  return spirv_cross_version() + " writes no " + std::string(backend_name(backend)) + " for " + what +
         ": cook this shader for SPIR-V";
}

}  // namespace

BindingMap map_bindings(const std::vector<runtime::StageReflection>& stage_reflections, Backend backend) {
  BindingMap map;
  if (backend == Backend::kSpirv || backend == Backend::kHlsl) return map;
  std::map<std::pair<std::uint32_t, std::uint32_t>, DescriptorKind> kinds;  // union over the stages, sorted
  for (const auto& r : stage_reflections)
    for (const auto& b : r.bindings) kinds.emplace(std::make_pair(b.set, b.binding), b.kind);
  std::map<ResourceClass, std::uint32_t> next;
  std::uint32_t buffers = 0, textures = 0, samplers = 0;
  for (const auto& [key, kind] : kinds) {
    BackendBinding b;
    b.binding = next[glsl_class(kind)]++;
    if (runtime::takes_buffer_slot(kind)) b.msl_buffer = buffers++;
    if (runtime::takes_texture_slot(kind)) b.msl_texture = textures++;
    if (runtime::takes_sampler_slot(kind)) b.msl_sampler = samplers++;
    map.descriptors[key] = b;
  }
  map.msl_push_constant_buffer = buffers;
  return map;
}

void record_backend_bindings(runtime::StageReflection& reflection, const BindingMap& map, Backend backend) {
  if (backend == Backend::kSpirv) return;
  for (auto& b : reflection.bindings) {
    runtime::BackendSlot& slot = b.slot;
    slot = {};
    if (backend == Backend::kHlsl) {
      slot = {backend, {}, {}, {}, {}, b.binding, b.set};
      continue;
    }
    auto it = map.descriptors.find({b.set, b.binding});
    if (it == map.descriptors.end()) continue;
    if (backend == Backend::kMsl) {
      slot.backend = backend;
      if (runtime::takes_buffer_slot(b.kind)) slot.buffer = it->second.msl_buffer;
      if (runtime::takes_texture_slot(b.kind)) slot.texture = it->second.msl_texture;
      if (runtime::takes_sampler_slot(b.kind)) slot.sampler = it->second.msl_sampler;
    } else if (glsl_class(b.kind) != ResourceClass::kNone) {
      slot.backend = backend;
      slot.binding = it->second.binding;
    }
  }
  if (backend == Backend::kMsl)
    for (auto& p : reflection.push_constants) p.slot = {backend, {}, map.msl_push_constant_buffer};
}

Result<std::string> cross_compile(const std::vector<std::uint32_t>& spirv, Backend backend, const BindingMap& map) {
  try {
    if (backend == Backend::kSpirv) return std::string();
    const CrossInput input = spirv_cross_input(spirv);
    switch (backend) {
      case Backend::kSpirv: return std::string();
      case Backend::kGlsl:
      case Backend::kEssl: {
        spirv_cross::CompilerGLSL glsl(input.words);
        restore_held_names(glsl, input);
        auto options = glsl.get_common_options();
        options.es = backend == Backend::kEssl;
        options.version = options.es ? 310 : 450;
        options.vulkan_semantics = false;
        glsl.set_common_options(options);
        apply_glsl_bindings(glsl, map);
        return glsl.compile();
      }
      case Backend::kHlsl: {
        spirv_cross::CompilerHLSL hlsl(input.words);
        if (auto refused = unwritable_stage(backend, hlsl.get_execution_model()))
          return make_error("cannot translate it to hlsl: " + *refused);
        restore_held_names(hlsl, input);
        auto options = hlsl.get_hlsl_options();
        // Register spaces: a descriptor set is a space. A mesh shader is shader model 6.5's.
        options.shader_model = hlsl.get_execution_model() == spv::ExecutionModelMeshEXT ? 65 : 51;
        hlsl.set_hlsl_options(options);
        return hlsl.compile();
      }
      case Backend::kMsl: {
        spirv_cross::CompilerMSL msl(input.words);
        if (auto refused = unwritable_stage(backend, msl.get_execution_model()))
          return make_error("cannot translate it to msl: " + *refused);
        restore_held_names(msl, input);
        apply_msl_bindings(msl, map);
        return msl.compile();
      }
    }
    return make_error("unknown backend");
  } catch (const std::exception& e) {
    return make_error("SPIRV-Cross cannot translate it to " + std::string(backend_name(backend)) + ": " +
                      spirv_cross_failure(spirv, e.what()));
  }
}

}  // namespace kiln::shadercache
