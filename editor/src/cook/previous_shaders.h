#pragma once
// The variants a cook can copy from the set it replaces. When the shaders pack cannot be kept
// whole (unchanged_shaders.h) because some of its inputs changed, a variant whose content key is
// the one it was packed from last time is copied from the previous pack, byte for byte, instead of
// being read from the cache, decoded and encoded again: one edit costs the variants it changes.
//
// The record is `<out>/.shaders-entries`: a line saying what it is and the build that made the
// pack, one naming the pack file, its header checksum and the digest of the shaders identity it
// was cooked for, then one line per packed variant: its content key and its id in the pack
// (target, then name). It is a hint: it counts only while the directory's manifest names that pack
// and the pack's header still carries that checksum, for the same identity and by the same build;
// each copied payload is checked against the pack's index. A variant that warned is not recorded,
// so that the next cook builds it and says its warnings again. A cook with --verify never copies.
//
// Thread-safety: open() and record_shaders_entries() on the cook's thread; find() from any.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cook/cook_variants.h"
#include "kiln/cache/blob_store.h"
#include "kiln/core/result.h"
#include "kiln/runtime/manifest.h"
#include "kiln/runtime/pack_contents.h"
#include "kiln/runtime/pack_file.h"

namespace kiln::cook {

inline constexpr const char* kShadersEntriesFile = ".shaders-entries";

class PreviousShaders {
 public:
  // The shaders pack of the set in `out` and its record, if both are there and were made for
  // `identity` by this build; nullptr otherwise (nothing to copy).
  static std::unique_ptr<PreviousShaders> open(const std::filesystem::path& out,
                                               const runtime::ShadersIdentity& identity);
  // The encoded record of variant `name` of `target`, if the previous pack holds it built from
  // `key`; nullopt when it does not or its bytes do not check (then the variant is built).
  std::optional<std::vector<std::byte>> find(const std::string& target, const std::string& name,
                                             const cache::BlobKey& key) const;
  std::size_t size() const { return keys_.size(); }

 private:
  std::unique_ptr<runtime::PackFile> pack_;
  std::unordered_map<std::string, std::string> keys_;  // variant id -> content key (hex)
};

// Records what the shaders pack just written to `out` (`written_pack`, as the commit's manifest
// named it) holds, by content key (each target's `content_keys`, in the order of its results); a
// variant that failed or warned is left out.
Status record_shaders_entries(const std::filesystem::path& out, const runtime::ManifestPack& written_pack,
                              const std::vector<TargetVariants>& targets);

}  // namespace kiln::cook
