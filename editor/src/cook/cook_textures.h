#pragma once
// The cook's textures stage: every texture a material names, as .tx bytes (converted once per
// source content and kept in the cache store, or the artist's .tx beside it), then, for targets
// that ship textures block-compressed, encoded for the GPU (cached the same way); on the tool's
// worker pool.
//
// Thread-safety: called from the cook's thread; the work runs on `pool`.

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cook/cook_errors.h"
#include "cook/progress.h"
#include "cook/texture_conversions.h"
#include "cook/texture_encodings.h"
#include "kiln/core/worker_pool.h"
#include "kiln/project/project.h"
#include "kiln/runtime/shader_target.h"

namespace kiln::cook {

// A texture of a target that ships it otherwise than the default target (another size cap, or
// another format).
struct TargetTexture {
  std::string target, file;
  std::vector<std::byte> tx;  // a .tx or a compressed record
};

// What a texture was made from: the file read (the source, or the artist's .tx beside it) and the
// XXH3-128 of its bytes.
struct TextureMadeFrom {
  std::filesystem::path artist_tx;  // empty: the source
  cache::Hash128 digest;
  bool operator==(const TextureMadeFrom&) const = default;
};

struct CookedTextures {
  // Per source, in order: what it was made from; nullopt when it failed, or when its conversions
  // for several size caps read different bytes (it changed meanwhile).
  std::vector<std::optional<TextureMadeFrom>> made_from;
  std::vector<std::pair<std::string, std::vector<std::byte>>> files;  // project-relative source -> what ships
  std::vector<TargetTexture> target_files;                            // the other targets' own copies
  std::size_t converted = 0, from_tx = 0;                             // conversions made now; served by an artist's .tx
  std::size_t encoded = 0;                           // GPU encodings made now (the rest came from the cache)
  bool capped = false;                               // some target has a size cap
  std::map<std::string, std::size_t> formats;        // the default target's textures per format ("bc7": 3)
  std::uint64_t gpu_bytes = 0, rgba8_gpu_bytes = 0;  // the default target's, and the same as RGBA8
};

// Converts each of `sources` (files under `root`) once per distinct size cap of `targets` (the
// first is the default; none: one uncapped conversion), and encodes each conversion once per
// distinct way a target ships it. `progress` ticks once per conversion and per encoding.
CookedTextures cook_textures(const std::filesystem::path& root, std::span<const project::TextureInput> sources,
                             TextureConversions& conversions, TextureEncodings& encodings, bool verify,
                             const std::vector<runtime::ShaderTarget>& targets, core::WorkerPool& pool,
                             Progress& progress, CookErrors& errors);

}  // namespace kiln::cook
