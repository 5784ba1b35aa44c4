#pragma once
// CookedSetWriter: what `kiln cook` writes a cooked set through. Entries are added through the pack
// contract's encoders; commit() writes the three packs beside the set already in the directory
// (new files, named by their checksum), then switches to them by replacing the manifest — the one
// step that changes what a reader sees — and only then removes packs no manifest names. A failure
// or a kill at any point leaves the previous set whole and loadable.
//
// Cooks that commit into one directory at the same time take turns (an advisory lock on
// `<dir>/.lock`); the last commit wins, whole.
//
// Thread-safety: owned by one thread.

#include <filesystem>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/pack.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/variant_record.h"

namespace kiln::runtime {

class CookedSetWriter {
 public:
  CookedSetWriter(const ShadersIdentity& shaders_identity, const ScriptsIdentity& scripts_identity);

  void add_variant(const std::string& target, const std::string& name, const VariantRecord& record);
  void add_material(const MaterialRecord& record);
  void add_program(const std::string& file, std::vector<std::byte> bytecode);
  void add_page(const std::string& page_id, std::vector<std::byte> code);
  // `target` (empty: every target) names the one target these bytes are for, when its textures
  // differ from the default target's (a smaller size cap).
  void add_texture(const std::string& file, std::vector<std::byte> tx_bytes, const std::string& target = {});

  Status commit(const std::filesystem::path& dir) const;

 private:
  PackWriter shaders_, scripts_, textures_;
};

}  // namespace kiln::runtime
