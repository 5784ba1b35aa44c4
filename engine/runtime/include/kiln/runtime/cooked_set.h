#pragma once
// CookedSet: the reader API of a cooked directory, what a game links to load what `kiln cook`
// made. open() reads the manifest and maps the three packs it names, refusing a pack whose size or
// checksum is not the manifest's. Under a trust policy (trust_policy.h) it also refuses a set that
// is not signed by a trusted key, whose signature does not match its manifest, or whose packs do
// not have the SHA-256 the signed manifest names: checked on the bytes read, before anything of
// the set is used, so no code of a refused set ever runs. Then
//
//   material("materials/brick.json")   -> its passes: variant name, parameter block bytes, texture bindings
//   variant(pass.variant[, target])    -> per stage SPIR-V, reflection and the target's source
//   texture("textures/brick.png")      -> the .tx (or block-compressed record) bytes, in place
//   texture_description(...)           -> its format, block size, levels and bytes on the GPU
//   program("scripts/x.lua")           -> serialised bytecode; compiled pages through pack(kScripts)
//
// Every answer is decoded through the pack contract and checked; a missing or malformed entry is
// an error naming the pack and the entry, never a crash. check() looks at the whole set once.
//
// Thread-safety: immutable after open(); every member function may be called from any thread.

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/pack.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/variant_record.h"
#include "kiln/textures/compressed_texture.h"
#include "kiln/trust/trust_policy.h"
#include "kiln/usage/usage_record.h"

namespace kiln::runtime {

class CookedSet {
 public:
  static Result<std::unique_ptr<CookedSet>> open(const std::filesystem::path& dir,
                                                 const trust::TrustPolicy& trust = {});

  const Pack& pack(PackKind kind) const;
  const Manifest& manifest() const { return manifest_; }
  // The id of the key whose signature open() verified under its trust policy; empty when it had none.
  const std::string& verified_signer() const { return verified_signer_; }

  // The ids of every entry of `kind` (project files, variant names, page ids), sorted.
  std::vector<std::string> ids(EntryKind kind) const;

  Result<MaterialRecord> material(std::string_view file) const;
  // The targets the shaders were cooked for ("spirv-vulkan1.0", ...), the default first.
  std::vector<std::string> targets() const;
  // A variant of `target` (empty: the default target), each stage's reflection checked against its
  // SPIR-V (check_reflection): a disagreement is an error naming the pack, variant and stage.
  Result<VariantRecord> variant(std::string_view name, std::string_view target = {}) const;
  Result<std::span<const std::byte>> program(std::string_view file) const;
  // The .tx of `file` for `target` (empty: the default target): the target's own copy when the cook
  // made one (a smaller size cap), else the one every target shares.
  Result<std::span<const std::byte>> texture(std::string_view file, std::string_view target = {}) const;
  // What that texture ships as: its format (rgba8 or rgba16f for a .tx, a block format for a
  // compressed record), block size through textures::gpu_format_info, levels and bytes on the GPU.
  Result<textures::ShippedTexture> texture_description(std::string_view file, std::string_view target = {}) const;
  // The pipelines of `target` (empty: the default) that the usage records the set was cooked by saw
  // made, in the order first made: what a player creates before its first frame. Empty for a set
  // cooked without records.
  Result<std::vector<usage::PipelineUse>> recorded_pipelines(std::string_view target = {}) const;
  // The scripts pack's identity; nullopt when it is not one.
  std::optional<ScriptsIdentity> scripts_identity() const;

  // Every material decodes, and every variant and texture it names is in the set and decodes.
  // Lists every problem, one per line.
  Status check() const;

 private:
  CookedSet() = default;
  Result<std::span<const std::byte>> entry(EntryKind kind, std::string_view id) const;

  Manifest manifest_;
  std::string verified_signer_;
  std::unique_ptr<Pack> shaders_, scripts_, textures_;
};

}  // namespace kiln::runtime
