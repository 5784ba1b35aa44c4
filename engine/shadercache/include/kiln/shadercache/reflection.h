#pragma once
// What a SPIR-V module exposes, read with SPIRV-Cross: descriptor bindings (set, binding, name,
// kind, array size, block size), push-constant blocks, stage inputs and outputs (location, name,
// type), specialization constants, and the compute work-group size. Stored beside each module as
// JSON; `kiln shader reflect` prints it.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"

namespace kiln::shadercache {

Result<nlohmann::json> reflect_spirv(const std::vector<std::uint32_t>& spirv);

// "SPIRV-Cross <package version>": part of every persistent cache namespace.
std::string spirv_cross_version();

}  // namespace kiln::shadercache
