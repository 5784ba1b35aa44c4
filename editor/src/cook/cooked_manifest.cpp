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

}  // namespace kiln::cook
