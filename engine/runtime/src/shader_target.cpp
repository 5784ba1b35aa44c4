#include "kiln/runtime/shader_target.h"

#include "kiln/core/text.h"

namespace kiln::runtime {
namespace {

constexpr std::string_view kTargetEnvs[] = {
#define KILN_TARGET_ENV_NAME(name, stored) stored,
    KILN_TARGET_ENVS(KILN_TARGET_ENV_NAME)
#undef KILN_TARGET_ENV_NAME
};

}  // namespace

std::string_view target_env_name(TargetEnv env) { return kTargetEnvs[std::size_t(env)]; }

std::optional<TargetEnv> parse_target_env(std::string_view text) {
  const auto index = name_index(kTargetEnvs, text);
  return index ? std::optional(TargetEnv(*index)) : std::nullopt;
}

std::string target_env_names() { return listed_names(kTargetEnvs); }

std::string ShaderTarget::id() const {
  std::string id = std::string(backend_name(backend)) + "-" + std::string(target_env_name(target_env));
  if (textures != textures::TextureShipping::kRgba8) id += "-" + std::string(textures::texture_shipping_name(textures));
  return id;
}

}  // namespace kiln::runtime
