#include "kiln/cache/detail/cache_accounting.h"

#include <algorithm>

namespace kiln::cache::detail {

void CacheAccounting::add(std::size_t bytes) {
  const std::uint64_t now = live_bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::uint64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {}
}

ThreadCounters* CacheAccounting::register_thread() {
  std::lock_guard lock(threads_mu_);
  threads_.push_back(std::make_unique<ThreadCounters>());
  return threads_.back().get();
}

void CacheAccounting::retire_thread(ThreadCounters* counters) {
  std::lock_guard lock(threads_mu_);
  auto it = std::find_if(threads_.begin(), threads_.end(), [&](const auto& p) { return p.get() == counters; });
  if (it == threads_.end()) return;
  retired_l1_hits_ += (*it)->l1_hits.load(std::memory_order_relaxed);
  retired_l2_hits_ += (*it)->l2_hits.load(std::memory_order_relaxed);
  threads_.erase(it);
}

std::vector<const void*> CacheAccounting::hazards() const {
  std::vector<const void*> set;
  if (!hazards_used.load(std::memory_order_seq_cst)) return set;
  std::lock_guard lock(threads_mu_);
  for (const auto& t : threads_)
    if (const void* h = t->hazard.load(std::memory_order_seq_cst)) set.push_back(h);
  return set;
}

TwoLevelCacheStats CacheAccounting::snapshot() const {
  TwoLevelCacheStats s;
  {
    std::lock_guard lock(threads_mu_);
    s.l1_hits = retired_l1_hits_;
    s.l2_hits = retired_l2_hits_;
    for (const auto& t : threads_) {
      s.l1_hits += t->l1_hits.load(std::memory_order_relaxed);
      s.l2_hits += t->l2_hits.load(std::memory_order_relaxed);
    }
  }
  s.loads = loads.load(std::memory_order_relaxed);
  s.load_errors = load_errors.load(std::memory_order_relaxed);
  s.load_wait_ns = load_wait_ns.load(std::memory_order_relaxed);
  s.invalidations = invalidations.load(std::memory_order_relaxed);
  s.bytes_in_use = live_bytes_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_bytes_.load(std::memory_order_relaxed);
  s.budget_bytes = budget.load(std::memory_order_relaxed);
  return s;
}

void TagEpochs::bump(std::uint64_t tag) {
  std::lock_guard lock(mu_);
  last_[tag] = clock_.fetch_add(1, std::memory_order_acq_rel) + 1;
}

bool TagEpochs::invalidated_since(const std::vector<std::uint64_t>& tags, std::uint64_t epoch) const {
  if (tags.empty() || now() == epoch) return false;
  std::lock_guard lock(mu_);
  for (std::uint64_t t : tags) {
    auto it = last_.find(t);
    if (it != last_.end() && it->second > epoch) return true;
  }
  return false;
}

}  // namespace kiln::cache::detail
