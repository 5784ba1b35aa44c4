#include "kiln/cache/cache_stats.h"

#include "kiln/core/config.h"

namespace kiln::cache {

std::string TwoLevelCacheStats::summary() const {
  return "l1=" + std::to_string(l1_hits) + " l2=" + std::to_string(l2_hits) + " miss=" + std::to_string(misses) +
         " wait=" + std::to_string(load_waits) + "/" + std::to_string(load_wait_ns / 1000) +
         "us err=" + std::to_string(load_errors) + " evict=" + std::to_string(evictions) +
         " inval=" + std::to_string(invalidations) + " entries=" + std::to_string(entries) +
         " in_use=" + kiln::format_size(bytes_in_use) + " pinned_only=" + kiln::format_size(bytes_pinned_only) +
         " peak=" + kiln::format_size(peak_bytes) + " budget=" + kiln::format_size(budget_bytes);
}

}  // namespace kiln::cache
