#pragma once
// What a shader variant is built for: a backend (the language it is delivered in) and the Vulkan
// environment its SPIR-V is made for. A cooked set's shaders pack stores each target's variants
// under the target's id ("spirv-vulkan1.0"); a project's kiln.json lists the targets it ships, and
// shadercache compiles for one.
//
// Thread-safety: plain values and pure functions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/runtime/reflection.h"
#include "kiln/textures/gpu_format.h"

namespace kiln::runtime {

// The one table of Vulkan environments: X(Name, stored name).
#define KILN_TARGET_ENVS(X) \
  X(Vulkan1_0, "vulkan1.0") X(Vulkan1_1, "vulkan1.1") X(Vulkan1_2, "vulkan1.2") X(Vulkan1_3, "vulkan1.3")

enum class TargetEnv : std::uint8_t {
#define KILN_TARGET_ENV_ENUMERATOR(name, stored) k##name,
  KILN_TARGET_ENVS(KILN_TARGET_ENV_ENUMERATOR)
#undef KILN_TARGET_ENV_ENUMERATOR
};
#define KILN_TARGET_ENV_COUNT(name, stored) +1
inline constexpr std::size_t kTargetEnvCount = 0 KILN_TARGET_ENVS(KILN_TARGET_ENV_COUNT);
#undef KILN_TARGET_ENV_COUNT
std::string_view target_env_name(TargetEnv env);                   // "vulkan1.2"
std::optional<TargetEnv> parse_target_env(std::string_view text);  // from "vulkan1.2"
// Every stored name, for messages: "vulkan1.0, vulkan1.1, ...".
std::string target_env_names();

struct ShaderTarget {
  Backend backend = Backend::kSpirv;
  TargetEnv target_env = TargetEnv::kVulkan1_0;
  std::uint32_t max_size = 0;  // the longest texture side it ships; 0: no cap
  textures::TextureShipping textures = textures::TextureShipping::kRgba8;  // how its textures ship
  textures::TextureQuality texture_quality = textures::TextureQuality::kMedium;
  // "spirv-vulkan1.0": its name in the shaders pack; a target whose textures ship block-compressed
  // says so ("spirv-vulkan1.0-bc"), so that one project can ship the same shaders with BC and ASTC.
  std::string id() const;
  bool operator==(const ShaderTarget&) const = default;
};

}  // namespace kiln::runtime
