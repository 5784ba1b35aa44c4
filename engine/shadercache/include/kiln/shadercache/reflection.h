#pragma once
// What a SPIR-V module exposes, read with SPIRV-Cross: descriptor bindings (set, binding, name,
// kind, array size, block size), push-constant blocks, stage inputs and outputs (location, name,
// type), specialization constants, and the compute work-group size, as the typed reflection of
// the pack contract (kiln/runtime/reflection.h); `kiln shader reflect` prints it.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/reflection.h"

namespace kiln::shadercache {

Result<runtime::StageReflection> reflect_spirv(const std::vector<std::uint32_t>& spirv);

// "SPIRV-Cross <package version>": part of every persistent cache namespace.
std::string spirv_cross_version();

}  // namespace kiln::shadercache
