#pragma once
// The one cache store of a `kiln` process, opened from the configuration and handed down to every
// kind's user (shader variants, script pages and compiler fingerprints, texture conversions).
// Nothing else writes under cache.root. The store is an optimisation: when it cannot be opened,
// `who` says so on stderr (one line naming the directory and the problem) and the work is done
// without it.

#include <memory>
#include <string>

#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"

namespace kiln::cli {

// The remote level of cache.remote (the shared kinds: shaders, textures), for the tools; nullptr
// without one, or (said on stderr) when it cannot be used. Only the tools link the remote's
// clients: a script run, whose pages never travel, maps none of them.
std::shared_ptr<cache::RemoteStorage> open_remote_level(const Config& config, const std::string& who);

// The store at cache.root with its caps and `remote` behind it (`fill_remote`: local hits are
// sent to the remote when it lacks them, as a shard does); nullptr (said on stderr) when it
// cannot be opened.
std::unique_ptr<cache::BlobStore> open_cache_store(const Config& config, const std::string& who,
                                                   std::shared_ptr<cache::RemoteStorage> remote = nullptr,
                                                   bool fill_remote = false);

// The store as each kind's kill switch lets it be used: nullptr when the kind's cache is off.
inline cache::BlobStore* shader_store(const Config& config, cache::BlobStore* store) {
  return config.shader_disk_cache ? store : nullptr;
}
inline cache::BlobStore* jit_store(const Config& config, cache::BlobStore* store) {
  return config.jit_cache ? store : nullptr;
}

}  // namespace kiln::cli
