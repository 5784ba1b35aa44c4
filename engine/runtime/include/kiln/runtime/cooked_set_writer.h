#pragma once
// CookedSetWriter: what `kiln cook` writes a cooked set through. Entries are added through the pack
// contract's encoders; commit() writes the three packs beside the set already in the directory
// (new files, named by their checksum), then switches to them by replacing the manifest — the one
// step that changes what a reader sees — and only then removes packs no manifest names. A failure
// or a kill at any point leaves the previous set whole and loadable.
//
// With a signer, the manifest carries a signature over it (manifest.h), which commits to every pack
// by its SHA-256: a reader with a trust policy accepts nothing else.
//
// Cooks that commit into one directory at the same time take turns (an advisory lock on
// `<dir>/.lock`); the last commit wins, whole.
//
// Thread-safety: owned by one thread.

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/pack.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/variant_record.h"
#include "kiln/usage/usage_record.h"

namespace kiln::runtime {

// Signs `signed_text` (manifest_signed_text of the manifest to write): the key's id and the signature.
using ManifestSigner = std::function<Result<ManifestSignature>(std::string_view signed_text)>;

class CookedSetWriter {
 public:
  CookedSetWriter(const ShadersIdentity& shaders_identity, const ScriptsIdentity& scripts_identity);
  // A writer whose scripts identity is known later, so that variants can stream in as they are
  // built: set_scripts_identity() before commit().
  explicit CookedSetWriter(const ShadersIdentity& shaders_identity);
  void set_scripts_identity(const ScriptsIdentity& scripts_identity);

  void add_variant(const std::string& target, const std::string& name, const VariantRecord& record);
  // The same with the record already encoded (encode_variant_record), as a cook's workers make it.
  void add_encoded_variant(const std::string& target, const std::string& name, std::span<const std::byte> record);
  void add_material(const MaterialRecord& record);
  void add_program(const std::string& file, std::vector<std::byte> bytecode);
  void add_page(const std::string& page_id, std::vector<std::byte> code);
  // `target` (empty: every target) names the one target these bytes are for, when its textures
  // differ from the default target's (a smaller size cap).
  void add_texture(const std::string& file, std::vector<std::byte> tx_bytes, const std::string& target = {});

  // Keeps the pack of the set in the directory that `pack` (its manifest entry) names instead of
  // writing one from what was added: commit() fails if the set there no longer names it.
  void keep_pack(PackKind kind, ManifestPack pack) { kept_[kind] = std::move(pack); }

  // The pipelines of `target` a usage record saw made, in order (their variants must be in the set).
  void add_pipelines(const std::string& target, const std::vector<usage::PipelineUse>& pipelines);
  // The SHA-256 of the usage record the set is cooked by, for its manifest.
  void set_usage_sha256(std::string digest) { usage_sha256_ = std::move(digest); }

  // `written`, when given, receives the manifest switched in: what a record of this set written
  // after the commit must name (another cook may commit in between).
  Status commit(const std::filesystem::path& dir, const ManifestSigner& sign = {}, Manifest* written = nullptr) const;

 private:
  PackWriter shaders_, scripts_, textures_;
  std::string usage_sha256_;
  std::map<PackKind, ManifestPack> kept_;
};

}  // namespace kiln::runtime
