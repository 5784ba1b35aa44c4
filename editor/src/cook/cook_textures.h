#pragma once
// The cook's textures stage: every texture a material names, as .tx bytes (converted once per
// source content and kept in the cache store, or the artist's .tx beside it), on the tool's worker
// pool.
//
// Thread-safety: called from the cook's thread; the work runs on `pool`.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cook/cook_errors.h"
#include "kiln/project/project.h"
#include "cook/progress.h"
#include "cook/texture_conversions.h"
#include "kiln/core/worker_pool.h"
#include "kiln/runtime/shader_target.h"

namespace kiln::cook {

// A texture of a target whose size cap differs from the default target's.
struct TargetTexture {
  std::string target, file;
  std::vector<std::byte> tx;
};

struct CookedTextures {
  std::vector<std::pair<std::string, std::vector<std::byte>>> files;  // project-relative source -> .tx
  std::vector<TargetTexture> target_files;                            // the other caps' conversions, by target
  std::size_t converted = 0, from_tx = 0;                             // conversions made now; served by an artist's .tx
  bool capped = false;                                                // some target has a size cap
};

// Converts each of `sources` (files under `root`) once per distinct size cap of `targets` (the
// first is the default; none: one uncapped conversion). `progress` ticks once per conversion:
// large sources take seconds each.
CookedTextures cook_textures(const std::filesystem::path& root, std::span<const project::TextureInput> sources,
                             TextureConversions& conversions, bool verify,
                             const std::vector<runtime::ShaderTarget>& targets, core::WorkerPool& pool,
                             Progress& progress, CookErrors& errors);

}  // namespace kiln::cook
