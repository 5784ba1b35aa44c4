#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <random>
#include <thread>

#include "kiln/cache/two_level_cache.h"

using namespace kiln;
using namespace kiln::cache;
using namespace std::chrono_literals;

namespace {

// Invalidates random keys below `keys` every 50 µs on a thread of its own until stopped.
class KeyInvalidator {
 public:
  KeyInvalidator(TwoLevelCache<int, std::vector<int>>& cache, int keys, unsigned seed)
      : thread_([&cache, keys, seed, this] {
          std::mt19937 rng(seed);
          while (!stop_) {
            cache.invalidate(static_cast<int>(rng() % keys));
            std::this_thread::sleep_for(50us);
          }
        }) {}
  ~KeyInvalidator() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

TEST_SUITE("cache/concurrent") {
  TEST_CASE("many threads asking for one key load it exactly once and share the value") {
    TwoLevelCache<int, std::string> cache;
    constexpr int kThreads = 8;
    std::atomic<int> loads{0};
    std::barrier start(kThreads);
    std::vector<const std::string*> seen(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        auto r = cache.get(42, [&]() -> Result<Loaded<std::string>> {
          ++loads;
          std::this_thread::sleep_for(50ms);  // long enough that the others arrive while it loads
          return Loaded<std::string>{"value", 5, {}};
        });
        REQUIRE(r);
        seen[t] = r->get();
      });
    }
    for (auto& t : threads) t.join();
    CHECK(loads == 1);
    for (const std::string* p : seen) CHECK(p == seen[0]);
    auto s = cache.stats();
    CHECK(s.loads == 1);
    CHECK(s.misses == 1);
    CHECK(s.load_waits + s.l2_hits == kThreads - 1);
    CHECK(s.load_waits >= 1);
  }

  TEST_CASE("threads asking for different keys load them in parallel") {
    TwoLevelCache<int, int> cache;
    constexpr int kThreads = 4;
    std::atomic<int> active{0}, max_active{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto r = cache.get(t, [&]() -> Result<Loaded<int>> {
          const int now = ++active;
          int m = max_active.load();
          while (now > m && !max_active.compare_exchange_weak(m, now)) {}
          // Wait until every loader is inside its load; serialised loads would time out here.
          const auto deadline = std::chrono::steady_clock::now() + 5s;
          while (max_active.load() < kThreads && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(1ms);
          --active;
          return Loaded<int>{t, 4, {}};
        });
        REQUIRE(r);
        CHECK(**r == t);
      });
    }
    for (auto& t : threads) t.join();
    CHECK(max_active == kThreads);
    CHECK(cache.stats().loads == kThreads);
  }

  TEST_CASE("an error reaches every waiter of the failed load and is not cached") {
    TwoLevelCache<int, int> cache;
    constexpr int kThreads = 6;
    std::atomic<int> loads{0}, errors{0};
    std::barrier start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        start.arrive_and_wait();
        auto r = cache.get(1, [&]() -> Result<Loaded<int>> {
          ++loads;
          std::this_thread::sleep_for(50ms);
          return make_error("a.tx: bad tile");
        });
        if (!r && r.error().message == "a.tx: bad tile") ++errors;
      });
    }
    for (auto& t : threads) t.join();
    // Each request either waited for a failing load or started one; every one saw the error.
    CHECK(errors == kThreads);
    CHECK(loads >= 1);
    CHECK(cache.stats().load_waits == static_cast<std::uint64_t>(kThreads - loads));
    CHECK(cache.stats().entries == 0);
    auto ok = cache.get(1, []() -> Result<Loaded<int>> { return Loaded<int>{7, 4, {}}; });
    CHECK(**ok == 7);
  }

  TEST_CASE("under load with invalidations every value matches its key and the budget holds") {
    constexpr std::size_t kEntry = 1000, kBudget = 50 * kEntry;
    constexpr int kThreads = 4, kKeys = 400, kRequests = 20000;
    // With level 1 off every hit is a level-2 hit, read without a lock while others evict.
    for (std::size_t kL1 : {std::size_t{8}, std::size_t{0}}) {
      CAPTURE(kL1);
      TwoLevelCache<int, std::vector<int>> cache({.budget_bytes = kBudget, .l1_entries = kL1, .shards = 8});
      std::atomic<bool> stop{false};
      std::atomic<int> wrong{0};
      std::atomic<std::uint64_t> max_seen{0};
      auto watch = [&] {
        const std::uint64_t now = cache.stats().bytes_in_use;
        std::uint64_t m = max_seen.load();
        while (now > m && !max_seen.compare_exchange_weak(m, now)) {}
      };
      std::thread invalidator([&] {
        std::mt19937 rng(99);
        while (!stop) {
          if (rng() % 2)
            cache.invalidate(static_cast<int>(rng() % kKeys));
          else
            cache.invalidate_tag(rng() % 10);
          watch();
          std::this_thread::sleep_for(100us);
        }
      });
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          std::mt19937 rng(t);
          for (int i = 0; i < kRequests; ++i) {
            const int key = static_cast<int>(rng() % kKeys);
            auto r = cache.get(key, [key]() -> Result<Loaded<std::vector<int>>> {
              return Loaded<std::vector<int>>{std::vector<int>(8, key), kEntry, {Tag(key % 10)}};
            });
            if (!r || (**r)[0] != key || (**r)[7] != key) ++wrong;
          }
        });
      }
      for (auto& t : threads) t.join();
      stop = true;
      invalidator.join();
      CHECK(wrong == 0);
      // Beyond the budget only what is pinned (each thread's level 1, the value it holds, one in
      // flight) and the eighth an inserting thread may add before it waits for the eviction.
      const std::uint64_t slack = kBudget / 8 + kThreads * (kL1 + 2) * kEntry;
      CHECK(cache.stats().peak_bytes <= kBudget + slack);
      CHECK(max_seen <= kBudget + slack);
      auto s = cache.stats();
      CHECK(s.evictions > 0);
      CHECK(s.invalidations > 0);
      CHECK(s.l1_hits + s.l2_hits > 0);
      CHECK(s.l1_hits + s.l2_hits + s.misses + s.load_waits == std::uint64_t(kThreads) * kRequests);
      // The worker threads have exited, so their level-1 pins are gone: one more insert settles
      // the cache under its budget.
      REQUIRE(cache.get(-1, []() -> Result<Loaded<std::vector<int>>> {
        return Loaded<std::vector<int>>{{}, kEntry, {}};
      }));
      CHECK(cache.stats().bytes_in_use <= kBudget);
    }
  }
}

TEST_SUITE("cache/concurrent") {
  TEST_CASE("borrowed values under load with invalidations each match their key until the thread's next call") {
    constexpr std::size_t kEntry = 1000, kBudget = 50 * kEntry;
    constexpr int kThreads = 4, kKeys = 200, kRequests = 20000;
    for (std::size_t l1 : {std::size_t{8}, std::size_t{0}}) {
      CAPTURE(l1);
      TwoLevelCache<int, std::vector<int>> cache({.budget_bytes = kBudget, .l1_entries = l1, .shards = 8});
      std::atomic<int> wrong{0};
      KeyInvalidator invalidator(cache, kKeys, 7);
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          std::mt19937 rng(t);
          for (int i = 0; i < kRequests; ++i) {
            // A few keys every thread shares, as hot tiles and variants are.
            const int key = i % 4 == 0 ? static_cast<int>(rng() % kKeys) : static_cast<int>(rng() % 4);
            auto r = cache.borrow(key, [key]() -> Result<Loaded<std::vector<int>>> {
              return Loaded<std::vector<int>>{std::vector<int>(8, key), kEntry, {}};
            });
            // Read twice, with a yield between: another thread's eviction or invalidation must not
            // free what this thread borrowed before its next call.
            if (!r || (**r)[0] != key) ++wrong;
            std::this_thread::yield();
            if (r && (**r)[7] != key) ++wrong;
          }
          cache.release_this_thread();
        });
      }
      for (auto& t : threads) t.join();
      invalidator.stop();
      CHECK(wrong == 0);
      CHECK(cache.stats().invalidations > 0);
    }
  }
}

TEST_SUITE("cache/concurrent") {
  TEST_CASE("values borrowed into slots under load with invalidations each match their key until the slot is reused") {
    constexpr std::size_t kEntry = 1000, kBudget = 40 * kEntry, kSlots = 4;
    constexpr int kThreads = 4, kKeys = 200, kRequests = 20000;
    TwoLevelCache<int, std::vector<int>> cache({.budget_bytes = kBudget, .l1_entries = 8, .shards = 8});
    std::atomic<int> wrong{0};
    KeyInvalidator invalidator(cache, kKeys, 11);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto slots = cache.borrow_slots(kSlots);
        std::array<const std::vector<int>*, kSlots> kept{};
        std::array<int, kSlots> kept_key{};
        std::mt19937 rng(t + 100);
        for (int i = 0; i < kRequests; ++i) {
          const std::size_t slot = rng() % kSlots;
          const int key = i % 3 == 0 ? static_cast<int>(rng() % kKeys) : static_cast<int>(rng() % 8);
          auto r = cache.borrow_into(slots, slot, key, [key]() -> Result<Loaded<std::vector<int>>> {
            return Loaded<std::vector<int>>{std::vector<int>(8, key), kEntry, {}};
          });
          if (!r) {
            ++wrong;
            continue;
          }
          kept[slot] = *r;
          kept_key[slot] = key;
          // Every other slot's value is still the one it borrowed, whatever the others evicted.
          for (std::size_t s = 0; s < kSlots; ++s)
            if (kept[s] && ((*kept[s])[0] != kept_key[s] || (*kept[s])[7] != kept_key[s])) ++wrong;
        }
      });
    }
    for (auto& t : threads) t.join();
    invalidator.stop();
    CHECK(wrong == 0);
    auto s = cache.stats();
    CHECK(s.l2_hits > 0);
    CHECK(s.invalidations > 0);
  }
}
