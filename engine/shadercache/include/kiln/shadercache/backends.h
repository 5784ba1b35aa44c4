#pragma once
// Cross-compilation of a SPIR-V module, with SPIRV-Cross, to the shading languages of APIs without
// SPIR-V: GLSL 4.5, GLSL ES 3.1, HLSL (shader model 5.1; 6.5 for a mesh stage) and MSL, with every
// descriptor given a slot all of a variant's stages agree on. A stage SPIRV-Cross has no writer for
// in a backend is an error naming it (MSL: geometry, task, mesh and ray-tracing stages; HLSL: task
// and ray-tracing stages), never text no compiler takes.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/reflection.h"

namespace kiln::shadercache {

using runtime::Backend;  // names: runtime::backend_name, runtime::backend_named

// Where each descriptor (set, binding) of a variant lands in a backend that has no descriptor sets.
// GLSL and ESSL bindings and MSL buffer/texture/sampler indices are numbered per resource class over
// all of a variant's stages in (set, binding) order, so `set=0, binding=0` and `set=1, binding=0`
// never share a slot and every stage agrees; HLSL (shader model 5.1) keeps the binding as the
// register and the set as the register space.
struct BackendBinding {
  std::uint32_t binding = 0;                                       // GLSL / ESSL
  std::uint32_t msl_buffer = 0, msl_texture = 0, msl_sampler = 0;  // MSL
};
struct BindingMap {
  std::map<std::pair<std::uint32_t, std::uint32_t>, BackendBinding> descriptors;  // (set, binding) ->
  std::uint32_t msl_push_constant_buffer = 0;  // the first MSL buffer index after the descriptors
};
// From the reflections (reflect_spirv) of a variant's stages.
BindingMap map_bindings(const std::vector<runtime::StageReflection>& stage_reflections, Backend backend);
// Records where each binding (and the push constants) went: the slot of each entry.
void record_backend_bindings(runtime::StageReflection& reflection, const BindingMap& map, Backend backend);

// Source for `backend` with the bindings of `map` (nothing to do for kSpirv: an empty string).
Result<std::string> cross_compile(const std::vector<std::uint32_t>& spirv, Backend backend, const BindingMap& map = {});

}  // namespace kiln::shadercache
