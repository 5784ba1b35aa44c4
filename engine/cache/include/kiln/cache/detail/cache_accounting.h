#pragma once
// Byte accounting and counters shared by a TwoLevelCache, its values and every thread's level 1.
// Held by shared_ptr from all of them, so a value or a thread that outlives its cache still has
// somewhere to give its bytes back to.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kiln/cache/cache_stats.h"

namespace kiln::cache::detail {

// Written only by the owning thread (no read-modify-write needed), read by stats() and, for the
// hazard, by whoever frees retired entries.
struct alignas(64) ThreadCounters {          // own cache line: written by one thread, hit after hit
  std::atomic<const void*> hazard{nullptr};  // the level-2 entry this thread's last borrow() uses
  std::atomic<std::uint64_t> l1_hits{0};
  std::atomic<std::uint64_t> l2_hits{0};  // the ones served without the shard lock
  void bump_l1_hit() { bump(l1_hits); }
  void bump_l2_hit() { bump(l2_hits); }
  static void bump(std::atomic<std::uint64_t>& n) {
    n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
};

class CacheAccounting : public std::enable_shared_from_this<CacheAccounting> {
 public:
  std::atomic<std::uint64_t> budget{0};
  std::atomic<std::uint64_t> loads{0};
  std::atomic<std::uint64_t> load_errors{0};
  std::atomic<std::uint64_t> load_wait_ns{0};
  std::atomic<std::uint64_t> invalidations{0};

  // Live bytes, less `releasing` (evicted values about to be released), above the budget?
  bool over_budget(std::uint64_t releasing = 0) const {
    const std::uint64_t live = live_bytes_.load(std::memory_order_relaxed);
    return live - std::min(live, releasing) > budget.load(std::memory_order_relaxed);
  }
  // More than 1/8 over the budget: inserting threads stop leaving eviction to whoever holds the lock.
  bool far_over_budget() const {
    const std::uint64_t b = budget.load(std::memory_order_relaxed);
    return live_bytes_.load(std::memory_order_relaxed) > b + b / 8;
  }

  // Wraps a value so that its bytes count as live until the last pin on it is gone.
  template <class Value>
  std::shared_ptr<const Value> charge(Value&& value, std::size_t bytes) {
    auto owner = std::make_shared<Charged<Value>>(std::move(value), Charge{shared_from_this(), 0});
    owner->charge.bytes = bytes;  // counted from here on: nothing below can throw
    add(bytes);
    return std::shared_ptr<const Value>(owner, &owner->value);
  }

  ThreadCounters* register_thread();
  void retire_thread(ThreadCounters* counters);
  TwoLevelCacheStats snapshot() const;
  // Every registered thread's hazard that is set; none without reading them while no thread has
  // ever set one (a remover reads this after clearing `alive`, a reader sets it before its hazard).
  std::vector<const void*> hazards() const;
  std::atomic<bool> hazards_used{false};
  void note_hazard_use() {
    if (!hazards_used.load(std::memory_order_relaxed)) hazards_used.store(true, std::memory_order_seq_cst);
  }

 private:
  struct Charge {
    std::shared_ptr<CacheAccounting> owner;
    std::size_t bytes;
    Charge(std::shared_ptr<CacheAccounting> o, std::size_t b) : owner(std::move(o)), bytes(b) {}
    Charge(Charge&& other) noexcept : owner(std::move(other.owner)), bytes(other.bytes) {}
    Charge(const Charge&) = delete;
    ~Charge() {
      if (owner) owner->live_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
    }
  };
  template <class Value>
  struct Charged {
    Value value;
    Charge charge;
    Charged(Value&& v, Charge&& c) : value(std::move(v)), charge(std::move(c)) {}
  };

  void add(std::size_t bytes);

  std::atomic<std::uint64_t> live_bytes_{0};
  std::atomic<std::uint64_t> peak_bytes_{0};
  mutable std::mutex threads_mu_;
  std::vector<std::unique_ptr<ThreadCounters>> threads_;
  std::uint64_t retired_l1_hits_ = 0;
  std::uint64_t retired_l2_hits_ = 0;
};

// When each tag was last invalidated, on a clock that loads read when they begin. A load that
// completes with a tag invalidated after it began is served but not cached: it may have read
// data from before the change.
class TagEpochs {
 public:
  std::uint64_t now() const { return clock_.load(std::memory_order_acquire); }
  void bump(std::uint64_t tag);
  bool invalidated_since(const std::vector<std::uint64_t>& tags, std::uint64_t epoch) const;

 private:
  std::atomic<std::uint64_t> clock_{0};
  mutable std::mutex mu_;
  std::unordered_map<std::uint64_t, std::uint64_t> last_;  // tag -> clock value of its last invalidation
};

}  // namespace kiln::cache::detail
