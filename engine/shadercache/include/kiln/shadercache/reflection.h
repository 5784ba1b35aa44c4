#pragma once
// What a SPIR-V module exposes, read with SPIRV-Cross: descriptor bindings (set, binding, name,
// kind, array size, block size), push-constant blocks, stage inputs and outputs (location, name,
// type), specialization constants, and the compute work-group size. Stored beside each module as
// JSON; `kiln shader reflect` prints it.
//
// Cross-compilation of a module to GLSL 4.5, GLSL ES 3.1, HLSL (SM 5.0) or MSL is a backend.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kiln/core/result.h"

namespace kiln::shadercache {

Result<nlohmann::json> reflect_spirv(const std::vector<std::uint32_t>& spirv);

enum class Backend { kSpirv, kGlsl, kEssl, kHlsl, kMsl };
std::optional<Backend> parse_backend(std::string_view text);  // spirv glsl essl hlsl msl
std::string_view backend_name(Backend backend);

// Source for `backend` (nothing to do for kSpirv: returns an empty string).
Result<std::string> cross_compile(const std::vector<std::uint32_t>& spirv, Backend backend);

// "SPIRV-Cross <package version>": part of every persistent cache namespace.
std::string spirv_cross_version();

}  // namespace kiln::shadercache
