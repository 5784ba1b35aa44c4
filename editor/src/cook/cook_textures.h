#pragma once
// The cook's textures stage: every texture a material names, as .tx bytes (converted once per
// source content and kept in the cache store, or the artist's .tx beside it), on the tool's worker
// pool.
//
// Thread-safety: called from the cook's thread; the work runs on `pool`.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cook/cook_errors.h"
#include "cook/cook_project.h"
#include "cook/progress.h"
#include "cook/texture_conversions.h"
#include "kiln/core/worker_pool.h"

namespace kiln::cook {

struct CookedTextures {
  std::vector<std::pair<std::string, std::vector<std::byte>>> files;  // project-relative source -> .tx
  std::size_t converted = 0, from_tx = 0;                             // converted now; served by an artist's .tx
};

// `progress` ticks once per texture: a conversion of large sources takes seconds each.
CookedTextures cook_textures(const Project& project, TextureConversions& conversions, bool verify,
                             core::WorkerPool& pool, Progress& progress, CookErrors& errors);

}  // namespace kiln::cook
