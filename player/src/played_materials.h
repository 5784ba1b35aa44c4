#pragma once
// The materials a run plays: every material of the cooked set, or those whose project file matches
// one of the `--materials` patterns (shell patterns, as fnmatch reads them: "materials/level1/*").
// A game loads the materials of its level, not the whole set; a record made of such a run says so.
//
// Thread-safety: immutable after construction; read by the thread that draws.

#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/render/scene_source.h"
#include "kiln/runtime/cooked_set.h"

namespace kiln::player {

class PlayedMaterials final : public render::SceneSource {
 public:
  // An error names a pattern that matches no material of the set (a typo plays nothing).
  static Result<PlayedMaterials> choose(const runtime::CookedSet& set, const std::vector<std::string>& patterns);

  std::vector<std::string> materials() const override { return files_; }
  Result<runtime::MaterialRecord> material(std::string_view file) const override { return all_.material(file); }
  Result<runtime::VariantRecord> variant(std::string_view name) const override { return all_.variant(name); }
  Result<std::span<const std::byte>> texture(std::string_view file) const override { return all_.texture(file); }
  std::string shaders_origin() const override { return all_.shaders_origin(); }
  std::string textures_origin() const override { return all_.textures_origin(); }

 private:
  explicit PlayedMaterials(const runtime::CookedSet& set) : all_(set) {}
  render::CookedSetSource all_;
  std::vector<std::string> files_;  // sorted
};

}  // namespace kiln::player
