#pragma once
// How much each cache kind was used, counted by every store and kept across processes in
// <root>/<kind>/STATS (the way ccache keeps its counters): a store adds what it counted when it
// closes, under a lock on the kind's directory, through an atomic rewrite.
//
// Thread-safety: KindUseCounters may be added to from any thread; the file functions take the lock.

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>

#include "kiln/cache/blob_store.h"

namespace kiln::cache {

inline constexpr std::size_t kMaxKinds = 8;

class KindUseCounters {
 public:
  enum Field {
    kHits,
    kMisses,
    kCorrupt,
    kWrites,
    kEvictions,
    kRemoteHits,
    kRemoteMisses,
    kRemoteRejected,
    kRemoteErrors,
    kRemoteWrites,
    kRemoteBytesRead,
    kRemoteBytesWritten,
    kRemoteUntrusted,
    kFields
  };
  void add(int kind, Field field, std::uint64_t n = 1) {
    if (kind >= 0 && std::size_t(kind) < kMaxKinds && n) counts_[kind][field].fetch_add(n, std::memory_order_relaxed);
  }
  KindUse snapshot(int kind) const;

 private:
  std::array<std::array<std::atomic<std::uint64_t>, kFields>, kMaxKinds> counts_{};
};

// Adds `use` to the kind directory's STATS (best effort: counters are not worth failing a tool for).
void merge_kind_use(const std::filesystem::path& kind_dir, const KindUse& use);
// What STATS holds; zeros when it is absent or damaged (the counting starts again).
KindUse read_kind_use(const std::filesystem::path& kind_dir);
void reset_kind_use(const std::filesystem::path& kind_dir);

}  // namespace kiln::cache
