#pragma once
// What a project asks of the tools that build it, in the "cook" object of `<project>/kiln.json`:
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
// default's gets its own copy of the textures in the textures pack. A target's `textures` says how
// they ship: "rgba8" (the .tx, the default), "bc" (BC1/BC3/BC4/BC5/BC7 by texture, for desktop
// GPUs) or "astc" (ASTC LDR, for mobile ones), with `texture_quality` "low" | "medium" | "high"
// (see kiln/textures/gpu_format.h); such a target's id says it ("spirv-vulkan1.0-bc"), and its
// textures are its own copies unless they match the default's.
// Include directories are project-relative and must stay inside the project. Without the file or
// the object: one target, SPIR-V for Vulkan 1.0, no include directories, no defines.
// The cook builds every target; the editor compiles the default one, with the same include
// directories and defines, so that both see the same shaders.
//
// Thread-safety: plain values.

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/shader_target.h"

namespace kiln::project {

inline constexpr const char* kSettingsFile = "kiln.json";  // under the project root

struct ProjectSettings {
  std::vector<runtime::ShaderTarget> targets;  // never empty; the first is the default
  std::vector<std::string> include_dirs;       // relative to the project root, normalised
  std::vector<std::string> defines;            // "NAME" or "NAME=VALUE"
  // cook.sign_key: the private key the cook signs with, relative to the project root or absolute;
  // empty: none here (the configuration may still name one: its setting cook.sign_key, --sign).
  std::filesystem::path sign_key;
  bool operator==(const ProjectSettings&) const = default;
};

// Errors name the file as `root / kiln.json`, the JSON pointer and the problem, all at once.
Result<ProjectSettings> load_project_settings(const std::filesystem::path& root);

}  // namespace kiln::project
