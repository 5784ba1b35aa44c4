#pragma once
// The manifest of a cooked set (`manifest.json` in the cooked directory): the one file that says
// which packs make the set, each with its size, checksum (the pack header's, which stands for
// every byte of the pack against damage) and SHA-256 of its whole bytes (what a signature commits
// to: checksums find damage, not forgery). A cook writes new packs beside the old ones and
// switches by replacing the manifest, so a reader sees the old set or the new one, never a mix.
//
//   {"format": "kiln-cooked-set", "version": 1,
//    "packs": {"shaders": {"file": "shaders.<checksum>.pack", "bytes": 123, "checksum": "<16 hex>",
//                          "sha256": "<64 hex>"}, ...},
//    "usage": {"sha256": "<64 hex>"},
//    "signature": {"algorithm": "ed25519", "key": "<key id>", "value": "<128 hex>"}}
//
// The signature (optional) is over manifest_signed_text(): the manifest's own canonical text
// without the signature, so that it covers every field a reader uses, in the one form this code
// writes, whatever spacing or field order the file on disk has. Sets cooked before packs had a
// SHA-256 have none; a signed set always has them.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/core/result.h"
#include "kiln/runtime/pack.h"
#include "kiln/trust/public_key.h"

namespace kiln::runtime {

inline constexpr std::string_view kManifestFile = "manifest.json";
inline constexpr std::uint32_t kManifestVersion = 1;

struct ManifestPack {
  std::string file;  // a plain file name in the cooked directory
  std::uint64_t bytes = 0;
  std::uint64_t checksum = 0;
  std::string sha256;  // 64 lowercase hex digits; empty in a set cooked before packs had one
};

struct ManifestSignature {
  std::string key_id;  // trust::PublicKey::id() of the key that signed
  trust::Signature value{};
};

struct Manifest {
  std::map<PackKind, ManifestPack> packs;  // one of each kind
  // The SHA-256 of the usage record the set was cooked by (kiln cook --usage: the union of the
  // records, as usage::encode_usage writes it); empty: cooked without one.
  std::string usage_sha256;
  std::optional<ManifestSignature> signature;
};

// "<kind>.<16 hex of the checksum>.pack": a pack's name says what it holds, so a new set never
// overwrites a file of the set it replaces.
std::string pack_file_name(PackKind kind, std::uint64_t checksum);

std::string encode_manifest(const Manifest& manifest);
// The bytes a signature covers: a line naming what they are, then the canonical text of
// `manifest` without its signature.
std::string manifest_signed_text(const Manifest& manifest);
// Errors name `where`, the JSON pointer and the problem.
Result<Manifest> decode_manifest(std::string_view text, const std::string& where);

}  // namespace kiln::runtime
