#pragma once
// A warm cook as a metadata walk. A cook that wrote a set records beside it what its shaders pack
// was made from: every variant's content key (the bytes of its sources, its stages and defines,
// under its target's namespace), every material's source record, and the build of the code that
// turns them into pack bytes. The next cook into the same directory hashes the same from the
// sources alone — each file read once, no variant compiled or read from the cache — and, when the
// two agree and the pack is still there whole, keeps that pack instead of building it again.
//
// The record is `<out>/.shaders-inputs`: a line saying what it is and which build made the pack,
// then one naming the pack file, the inputs' digest and the XXH3-128 of the pack as written. It is
// a hint, never trusted for content: it counts only while the directory's manifest names the same
// pack, of the size the manifest gives, and the pack's bytes on disk still hash to what the
// recording cook wrote (so to the bytes the manifest's SHA-256 is of). A cook with --verify never
// takes it, and a cook whose variants warned writes none: a kept pack would not say the warnings
// again.
//
// The kept pack is proved as kept_pack.h says (`<out>/.shaders-identity` holds its identity).
//
// Thread-safety: called from the cook's thread.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cook/cook_variants.h"
#include "cook/kept_pack.h"
#include "kiln/cache/hash.h"
#include "kiln/core/result.h"
#include "kiln/core/worker_pool.h"
#include "kiln/project/project.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/pack_contents.h"

namespace kiln::cook {

inline constexpr const char* kShadersInputsFile = ".shaders-inputs";
inline constexpr const char* kShadersIdentityFile = ".shaders-identity";

// The digest of everything the shaders pack of `project` is made from; nullopt when some variant's
// key does not cover what it reads (then the pack is always built). Fills each target's
// content_keys on the way.
// `usage_sha256`: the usage record's the cook selects pipelines by, empty without one. The keys are
// computed on `pool`.
std::optional<cache::Hash128> shaders_inputs(const project::Project& project, std::vector<TargetVariants>& targets,
                                             const runtime::ShadersIdentity& identity, const std::string& usage_sha256,
                                             core::WorkerPool& pool);

// The shaders pack in `out` made from `inputs`, if it is there whole: its manifest entry, and
// whether its file identity proved it (else its bytes were read).
struct KeptShadersPack {
  runtime::ManifestPack pack;
  bool proved_by_identity = false;
  PendingIdentity identity;  // to write once the cook has committed
};
std::optional<KeptShadersPack> unchanged_shaders_pack(const std::filesystem::path& out, const cache::Hash128& inputs);

// Records that the set just written to `out`, whose manifest named `written_pack` as its shaders
// pack, has it made from `inputs` (reading the pack once to hash it); nullopt removes any record,
// so that the next cook builds the pack. A record of a pack the manifest no longer names (another
// cook committed since) never counts.
Status record_shaders_inputs(const std::filesystem::path& out, const runtime::ManifestPack& written_pack,
                             const std::optional<cache::Hash128>& inputs);

}  // namespace kiln::cook
