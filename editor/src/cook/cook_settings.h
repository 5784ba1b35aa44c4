#pragma once
// What a project asks of its cook, in the "cook" object of `<project>/kiln.json`:
//
//   {"cook": {"targets": [{"backend": "spirv", "target_env": "vulkan1.0", "max_size": 2048},
//                         {"backend": "hlsl"}],
//             "include_dirs": ["shaders/common"],
//             "defines": ["QUALITY=2", "USE_FOG"]}}
//
// Every target (a backend and the Vulkan environment its SPIR-V is made for) is built for every
// variant and stored under its own name in the shaders pack; the first is the set's default. A
// target's `max_size` caps its textures' longer side: they are converted with the mip levels above
// it left out (level 0 is the first level that fits), and a target whose cap differs from the
// default's gets its own copy of the textures in the textures pack.
// Include directories are project-relative and must stay inside the project. Without the file or
// the object: one target, SPIR-V for Vulkan 1.0, no include directories, no defines.
//
// Thread-safety: plain values.

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/shadercache/glsl_compiler.h"
#include "kiln/shadercache/backends.h"

namespace kiln::cook {

struct CookTarget {
  shadercache::Backend backend = shadercache::Backend::kSpirv;
  shadercache::TargetEnv target_env = shadercache::TargetEnv::kVulkan1_0;
  std::uint32_t max_size = 0;  // the longest texture side it ships; 0: no cap
  std::string id() const;      // "spirv-vulkan1.0": its name in the shaders pack
};

struct CookSettings {
  std::vector<CookTarget> targets;
  std::vector<std::string> include_dirs;  // relative to the project root
  std::vector<std::string> defines;       // "NAME" or "NAME=VALUE"
};

// Errors name the file, the JSON pointer and the problem, all at once.
Result<CookSettings> load_cook_settings(const std::filesystem::path& root);

}  // namespace kiln::cook
