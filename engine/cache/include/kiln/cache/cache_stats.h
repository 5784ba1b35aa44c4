#pragma once
// Statistics of a TwoLevelCache. Counters are since construction; bytes are current.

#include <cstdint>
#include <string>

namespace kiln::cache {

struct TwoLevelCacheStats {
  std::uint64_t l1_hits = 0;            // served by the calling thread's level 1, no lock taken
  std::uint64_t l2_hits = 0;            // served by level 2 (shared by every thread)
  std::uint64_t misses = 0;             // requests that started a load
  std::uint64_t loads = 0;              // loader calls (== misses; kept apart to prove single flight)
  std::uint64_t load_waits = 0;         // requests that waited for another thread's load of their key
  std::uint64_t load_wait_ns = 0;       // time those requests spent waiting
  std::uint64_t load_errors = 0;        // loads that failed (never cached)
  std::uint64_t evictions = 0;          // entries dropped for the budget
  std::uint64_t invalidations = 0;      // entries dropped by invalidate*
  std::uint64_t entries = 0;            // entries in level 2
  std::uint64_t bytes_resident = 0;     // bytes of the entries in level 2
  std::uint64_t bytes_in_use = 0;       // bytes of every live value: level 2 plus values only pinned
  std::uint64_t bytes_pinned_only = 0;  // part of bytes_in_use that left level 2 but is still pinned
  std::uint64_t peak_bytes = 0;         // highest bytes_in_use seen
  std::uint64_t budget_bytes = 0;

  // One line for logs: "l1=… l2=… miss=… …".
  std::string summary() const;
};

}  // namespace kiln::cache
