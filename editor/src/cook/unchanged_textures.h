#pragma once
// A warm cook keeps the textures pack as it keeps the shaders pack (unchanged_shaders.h). A cook
// that wrote a set records beside it what its textures pack was made from: every texture's file,
// its settings and the XXH3-128 of the bytes it was made from (the source, or the artist's .tx that
// served it), the targets' size caps and ways of shipping, the cache namespaces of the conversions
// and the encodings (the converters' and encoders' builds and versions), and the build of the code
// that writes the pack. The next cook into the same directory hashes the same — each source read
// once, no conversion or encoding read from the cache, no .tx decoded — and, when the two agree and
// the pack is there whole (kept_pack.h), keeps that pack. The record is made from the bytes the
// textures stage read, so a source edited while a cook runs is never recorded for a pack made from
// its earlier bytes. (A cook that builds the pack reads each source twice: once to compare.)
//
// The record is `<out>/.textures-inputs`: a line saying what it is and which build made the pack,
// one naming the pack file, the inputs' digest and the XXH3-128 of the pack as written, and one
// with what the report says of the pack's textures (formats, GPU bytes). It is a hint, never
// trusted for content. A cook with --verify never takes it, and a cook without a cache store (no
// namespaces to name) writes none.
//
// Thread-safety: called from the cook's thread; the hashing runs on `pool`.

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "cook/cook_report.h"
#include "cook/cook_textures.h"
#include "cook/texture_conversions.h"
#include "cook/texture_encodings.h"
#include "cook/kept_pack.h"
#include "kiln/cache/hash.h"
#include "kiln/core/result.h"
#include "kiln/core/worker_pool.h"
#include "kiln/project/project.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/shader_target.h"

namespace kiln::cook {

inline constexpr const char* kTexturesInputsFile = ".textures-inputs";
inline constexpr const char* kTexturesIdentityFile = ".textures-identity";

// The digest of everything the textures pack of `sources` (files under `root`) is made from for
// `targets`, reading each file now; nullopt when it cannot be told (no cache store, or a file that
// does not read: the textures stage then says why).
std::optional<cache::Hash128> textures_inputs(const std::filesystem::path& root,
                                              std::span<const project::TextureInput> sources,
                                              const std::vector<runtime::ShaderTarget>& targets,
                                              const TextureConversions& conversions, const TextureEncodings& encodings,
                                              core::WorkerPool& pool);
// The same digest of the bytes the textures stage read to make `cooked`: what the record of its
// pack must say, whatever changed on disk since textures_inputs read the files.
std::optional<cache::Hash128> cooked_textures_inputs(const std::filesystem::path& root,
                                                     std::span<const project::TextureInput> sources,
                                                     const std::vector<runtime::ShaderTarget>& targets,
                                                     const TextureConversions& conversions,
                                                     const TextureEncodings& encodings, const CookedTextures& cooked);

// The textures pack in `out` made from `inputs`, if it is there whole: its manifest entry, whether
// its file identity proved it, and what the report says of its textures (no conversion or encoding
// counted: none was made or read).
struct KeptTexturesPack {
  runtime::ManifestPack pack;
  bool proved_by_identity = false;
  TextureCounts counts;
  PendingIdentity identity;  // to write once the cook has committed
};
std::optional<KeptTexturesPack> unchanged_textures_pack(const std::filesystem::path& out, const cache::Hash128& inputs);

// Records that the set just written to `out`, whose manifest named `written_pack` as its textures
// pack, has it made from `inputs`, with `counts` as its report's (reading the pack once to hash
// it); nullopt removes any record.
Status record_textures_inputs(const std::filesystem::path& out, const runtime::ManifestPack& written_pack,
                              const std::optional<cache::Hash128>& inputs, const TextureCounts& counts);

}  // namespace kiln::cook
