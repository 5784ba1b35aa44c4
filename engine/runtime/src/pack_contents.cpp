#include "kiln/runtime/pack_contents.h"

namespace kiln::runtime {

std::string_view entry_prefix(EntryKind kind) {
  switch (kind) {
    case EntryKind::kVariant: return "variant:";
    case EntryKind::kMaterial: return "material:";
    case EntryKind::kProgram: return "program:";
    case EntryKind::kPage: return "page:";
    case EntryKind::kTexture: return "texture:";
    case EntryKind::kPipelines: return "pipelines:";
  }
  return "";
}

std::string entry_name(EntryKind kind, std::string_view id) { return std::string(entry_prefix(kind)).append(id); }

std::optional<std::string_view> entry_id(EntryKind kind, std::string_view name) {
  const std::string_view prefix = entry_prefix(kind);
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  return name.substr(prefix.size());
}

std::string variant_id(std::string_view target, std::string_view variant_name) {
  return std::string(target).append(":").append(variant_name);
}

std::optional<std::pair<std::string_view, std::string_view>> split_variant_id(std::string_view id) {
  const auto colon = id.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return std::pair{id.substr(0, colon), id.substr(colon + 1)};
}

std::string encode_shaders_identity(const ShadersIdentity& identity) {
  std::string out = "shaders";
  for (const auto& [target, ns] : identity.targets) out += " " + target + "=" + ns;
  return out;
}

std::optional<ShadersIdentity> decode_shaders_identity(std::string_view text) {
  constexpr std::string_view kPrefix = "shaders";
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  ShadersIdentity identity;
  while (!text.empty()) {
    if (text[0] != ' ') return std::nullopt;
    text.remove_prefix(1);
    const std::string_view word = text.substr(0, text.find(' '));
    text.remove_prefix(word.size());
    const auto eq = word.find('=');
    if (eq == 0 || eq == std::string_view::npos) return std::nullopt;
    identity.targets.emplace_back(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
  }
  if (identity.targets.empty()) return std::nullopt;
  return identity;
}

std::string encode_scripts_identity(const ScriptsIdentity& identity) {
  return "scripts " + identity.build_id + " " + identity.fingerprint;
}

std::optional<ScriptsIdentity> decode_scripts_identity(std::string_view text) {
  constexpr std::string_view kPrefix = "scripts ";
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  const auto space = text.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  return ScriptsIdentity{std::string(text.substr(0, space)), std::string(text.substr(space + 1))};
}

}  // namespace kiln::runtime
