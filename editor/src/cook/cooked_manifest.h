#pragma once
// The manifest of the set in a cook's output directory, as the cook's own records of that set read
// it: they are hints for the next cook, so a manifest that is missing or does not read is none.
//
// Thread-safety: a pure function of the file.

#include <filesystem>
#include <optional>

#include "kiln/runtime/manifest.h"

namespace kiln::cook {

std::optional<runtime::Manifest> read_cooked_manifest(const std::filesystem::path& out);
// The entry of the pack of `kind` that manifest names, if it reads and names one.
std::optional<runtime::ManifestPack> cooked_pack(const std::filesystem::path& out, runtime::PackKind kind);
inline std::optional<runtime::ManifestPack> cooked_shaders_pack(const std::filesystem::path& out) {
  return cooked_pack(out, runtime::PackKind::kShaders);
}

}  // namespace kiln::cook
