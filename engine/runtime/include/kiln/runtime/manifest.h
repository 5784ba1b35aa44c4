#pragma once
// The manifest of a cooked set (`manifest.json` in the cooked directory): the one file that says
// which packs make the set, each with its size and checksum (the pack header's, which stands for
// every byte of the pack). A cook writes new packs beside the old ones and switches by replacing
// the manifest, so a reader sees the old set or the new one, never a mix.
//
//   {"format": "kiln-cooked-set", "version": 1,
//    "packs": {"shaders": {"file": "shaders.<checksum>.pack", "bytes": 123, "checksum": "<16 hex>"}, ...}}
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "kiln/core/result.h"
#include "kiln/runtime/pack.h"

namespace kiln::runtime {

inline constexpr std::string_view kManifestFile = "manifest.json";
inline constexpr std::uint32_t kManifestVersion = 1;

struct ManifestPack {
  std::string file;  // a plain file name in the cooked directory
  std::uint64_t bytes = 0;
  std::uint64_t checksum = 0;
};

struct Manifest {
  std::map<PackKind, ManifestPack> packs;  // one of each kind
};

// "<kind>.<16 hex of the checksum>.pack": a pack's name says what it holds, so a new set never
// overwrites a file of the set it replaces.
std::string pack_file_name(PackKind kind, std::uint64_t checksum);

std::string encode_manifest(const Manifest& manifest);
// Errors name `where`, the JSON pointer and the problem.
Result<Manifest> decode_manifest(std::string_view text, const std::string& where);

}  // namespace kiln::runtime
