#include "cook/cooked_manifest.h"

#include "kiln/core/input_limits.h"

namespace kiln::cook {

std::optional<runtime::Manifest> read_cooked_manifest(const std::filesystem::path& out) {
  auto text = read_input_file(out / runtime::kManifestFile, limits::kJsonFileBytes, "manifest");
  if (!text) return std::nullopt;
  auto manifest = runtime::decode_manifest(*text, std::string(runtime::kManifestFile));
  if (!manifest) return std::nullopt;
  return std::move(*manifest);
}

std::optional<runtime::ManifestPack> cooked_pack(const std::filesystem::path& out, runtime::PackKind kind) {
  const auto manifest = read_cooked_manifest(out);
  if (!manifest) return std::nullopt;
  const auto it = manifest->packs.find(kind);
  if (it == manifest->packs.end()) return std::nullopt;
  return it->second;
}

}  // namespace kiln::cook
