#pragma once
// Where the tools keep the page compiler's fingerprint, so that a process whose pages all come from
// the cache never loads LLVM to learn it: an entry of the cache store's jit kind (in a namespace of
// the code generator's build, so it is pruned with that build's pages), keyed by this host's raw
// CPUID (what LLVM derives the host CPU from) and the code generation settings.
//
// Thread-safety: read() and keep() may be called from any thread (the store is).

#include <optional>
#include <string>

#include "kiln/cache/blob_store.h"

namespace kiln::jit {

class KeptFingerprint {
 public:
  // No store: nothing is kept, read() finds nothing.
  KeptFingerprint(cache::BlobStore* store, int opt_level, bool frem_libcall);
  // The kept fingerprint, if there is a sound one for this host. The store reads only this user's
  // sound entries, and a fingerprint naming a CPU feature this host lacks is a copied cache's.
  std::optional<std::string> read() const;
  // Keeps `actual` for the next process; a failure to write only means the next one asks again.
  void keep(const std::string& actual) const;

 private:
  cache::BlobStore* store_;
  std::optional<cache::BlobNamespace> ns_;
  cache::BlobKey key_{};
};

}  // namespace kiln::jit
