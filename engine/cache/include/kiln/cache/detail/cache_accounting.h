#pragma once
// Byte accounting and counters shared by a TwoLevelCache, its values and every thread's level 1.
// Held by shared_ptr from all of them, so a value or a thread that outlives its cache still has
// somewhere to give its bytes back to.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "kiln/cache/cache_stats.h"

namespace kiln::cache::detail {

// Written only by the owning thread (no read-modify-write needed), read by stats().
struct alignas(64) ThreadCounters {  // own cache line: written by one thread, hit after hit
  std::atomic<std::uint64_t> l1_hits{0};
  void bump_l1_hit() { l1_hits.store(l1_hits.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

class CacheAccounting : public std::enable_shared_from_this<CacheAccounting> {
 public:
  std::atomic<std::uint64_t> budget{0};
  std::atomic<std::uint64_t> loads{0};
  std::atomic<std::uint64_t> load_errors{0};
  std::atomic<std::uint64_t> invalidations{0};

  bool over_budget(std::uint64_t slack) const {
    return live_bytes_.load(std::memory_order_relaxed) > budget.load(std::memory_order_relaxed) + slack;
  }

  // Wraps a value so that its bytes count as live until the last pin on it is gone.
  template <class Value>
  std::shared_ptr<const Value> charge(Value&& value, std::size_t bytes) {
    add(bytes);
    auto owner = std::make_shared<Charged<Value>>(std::move(value), Charge{shared_from_this(), bytes});
    return std::shared_ptr<const Value>(owner, &owner->value);
  }

  ThreadCounters* register_thread();
  void retire_thread(ThreadCounters* counters);
  TwoLevelCacheStats snapshot() const;

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
};

}  // namespace kiln::cache::detail
