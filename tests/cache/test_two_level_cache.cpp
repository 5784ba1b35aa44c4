#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "kiln/cache/two_level_cache.h"

using namespace kiln;
using namespace kiln::cache;

namespace {

using Cache = TwoLevelCache<int, std::string>;

// A loader that counts its calls and returns "<key>#<call>" so a test sees which load it got.
struct CountingLoader {
  std::atomic<int> calls{0};
  std::size_t bytes = 100;
  std::vector<Tag> tags;
  auto operator()(int key) {
    return [this, key]() -> Result<Loaded<std::string>> {
      const int n = ++calls;
      return Loaded<std::string>{std::to_string(key) + "#" + std::to_string(n), bytes, tags};
    };
  }
};

}  // namespace

TEST_SUITE("cache") {
  TEST_CASE("a miss loads once - then level 1 serves the calling thread without a load") {
    Cache cache;
    CountingLoader load;
    auto a = cache.get(1, load(1));
    REQUIRE(a);
    CHECK(**a == "1#1");
    auto b = cache.get(1, load(1));
    REQUIRE(b);
    CHECK(b->get() == a->get());
    CHECK(load.calls == 1);
    auto s = cache.stats();
    CHECK(s.misses == 1);
    CHECK(s.loads == 1);
    CHECK(s.l1_hits == 1);
    CHECK(s.l2_hits == 0);
    CHECK(s.entries == 1);
    CHECK(s.bytes_resident == 100);
  }

  TEST_CASE("level 2 serves another thread - and serves everything when level 1 is off") {
    CountingLoader load;
    SUBCASE("other thread") {
      Cache cache;
      REQUIRE(cache.get(1, load(1)));
      std::thread([&] { CHECK(**cache.get(1, load(1)) == "1#1"); }).join();
      CHECK(cache.stats().l2_hits == 1);
    }
    SUBCASE("no level 1") {
      Cache cache({.budget_bytes = 1 << 20, .l1_entries = 0, .shards = 4});
      REQUIRE(cache.get(1, load(1)));
      REQUIRE(cache.get(1, load(1)));
      CHECK(cache.stats().l2_hits == 1);
      CHECK(cache.stats().l1_hits == 0);
    }
    CHECK(load.calls == 1);
  }

  TEST_CASE("a loader's error is returned and not cached") {
    Cache cache;
    int calls = 0;
    auto failing = [&]() -> Result<Loaded<std::string>> {
      ++calls;
      return make_error("shader.frag:3: error: boom");
    };
    auto r = cache.get(7, failing);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "shader.frag:3: error: boom");
    REQUIRE_FALSE(cache.get(7, failing));
    CHECK(calls == 2);
    CHECK(cache.stats().load_errors == 2);
    CHECK(cache.stats().entries == 0);
    CountingLoader load;
    CHECK(**cache.get(7, load(7)) == "7#1");
  }

  TEST_CASE("a loader that throws becomes an error - and the key stays loadable") {
    Cache cache;
    auto r = cache.get(1, []() -> Result<Loaded<std::string>> { throw std::runtime_error("disk on fire"); });
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("disk on fire") != std::string::npos);
    CountingLoader load;
    CHECK(**cache.get(1, load(1)) == "1#1");
  }

  TEST_CASE("the budget holds: least recently used entries are evicted") {
    Cache cache({.budget_bytes = 1000, .l1_entries = 0, .shards = 4});
    CountingLoader load;
    for (int k = 0; k < 100; ++k) REQUIRE(cache.get(k, load(k)));
    auto s = cache.stats();
    CHECK(s.bytes_in_use <= 1000);
    CHECK(s.entries == s.bytes_resident / 100);
    CHECK(s.evictions == 100 - s.entries);
    CHECK(s.entries >= 5);  // evicting far below the budget would be a bug too
    CHECK(s.peak_bytes <= 1100);
    // The most recent key is still cached.
    const int before = load.calls;
    REQUIRE(cache.get(99, load(99)));
    CHECK(load.calls == before);
  }

  TEST_CASE("eviction follows use: a key touched early outlives the keys inserted after it and never used") {
    Cache cache({.budget_bytes = 1000, .l1_entries = 0, .shards = 1});  // ten values of 100 bytes
    CountingLoader load;
    for (int k = 0; k < 10; ++k) REQUIRE(cache.get(k, load(k)));
    REQUIRE(cache.get(0, load(0)));  // a hit: 0 is now the most recently used
    CHECK(load.calls == 10);
    for (int k = 10; k < 15; ++k) REQUIRE(cache.get(k, load(k)));
    // Five went, the least recently used: 1 to 5; 0 stays with 6 to 14.
    CHECK(cache.peek(0).has_value());
    for (int k = 1; k <= 5; ++k) CHECK_FALSE(cache.peek(k).has_value());
    for (int k = 6; k < 15; ++k) CHECK(cache.peek(k).has_value());
    CHECK(cache.stats().evictions == 5);
  }

  TEST_CASE("the budget holds when every entry was used since eviction last looked") {
    Cache cache({.budget_bytes = 1000, .l1_entries = 0, .shards = 1});
    CountingLoader load;
    for (int k = 0; k < 10; ++k) REQUIRE(cache.get(k, load(k)));
    for (int k = 0; k < 10; ++k) REQUIRE(cache.get(k, load(k)));  // all hits: all marked used
    CHECK(cache.stats().l2_hits == 10);
    // Each new key pushes the cache over budget with nothing unmarked to evict: the hand clears
    // marks until an entry comes round unmarked, and the budget holds throughout.
    for (int k = 10; k < 20; ++k) {
      REQUIRE(cache.get(k, load(k)));
      CHECK(cache.stats().bytes_in_use <= 1000);
    }
    CHECK(cache.stats().evictions == 10);
  }

  TEST_CASE("level-2 hits read no freed entry while the index grows - shrinks and is rebuilt") {
    Cache cache({.budget_bytes = 100 * 100, .l1_entries = 0, .shards = 2});
    CountingLoader load;
    // Many more keys than fit: entries are evicted, erased from the index, and the index rebuilt
    // as tombstones accumulate; every hit must still find its own key's value.
    for (int round = 0; round < 3; ++round)
      for (int k = 0; k < 1000; ++k) {
        const int key = (k * 7) % 1000;
        auto v = cache.get(key, load(key));
        REQUIRE(v);
        CHECK((*v)->substr(0, (*v)->find('#')) == std::to_string(key));
        auto again = cache.get(key, load(key));  // a level-2 hit: just published
        REQUIRE(again);
        CHECK(again->get() == v->get());
      }
    auto s = cache.stats();
    CHECK(s.l2_hits == 3000);
    CHECK(s.evictions > 2000);
    CHECK(s.bytes_in_use <= 100 * 100);
  }

  TEST_CASE("pinned values survive eviction and invalidation - and the budget counts them") {
    Cache cache({.budget_bytes = 1000, .l1_entries = 0, .shards = 1});
    CountingLoader load;
    Pinned<std::string> held = *cache.get(0, load(0));
    for (int k = 1; k < 50; ++k) REQUIRE(cache.get(k, load(k)));
    CHECK(*held == "0#1");
    CHECK(cache.peek(0).has_value());  // pinned: eviction passes it over, since freeing it frees nothing

    CHECK(cache.invalidate(0) == 1);
    CHECK_FALSE(cache.peek(0).has_value());
    auto s = cache.stats();
    CHECK(*held == "0#1");
    CHECK(s.bytes_pinned_only == 100);
    CHECK(s.bytes_in_use == s.bytes_resident + 100);
    held.reset();
    CHECK(cache.stats().bytes_pinned_only == 0);
  }

  TEST_CASE("when everything is pinned the cache goes over budget rather than freeing a held value") {
    Cache cache({.budget_bytes = 300, .l1_entries = 0, .shards = 2});
    CountingLoader load;
    std::vector<Pinned<std::string>> held;
    for (int k = 0; k < 6; ++k) held.push_back(*cache.get(k, load(k)));
    auto s = cache.stats();
    CHECK(s.bytes_in_use == 600);
    CHECK(s.entries == 6);
    CHECK(s.evictions == 0);
    held.clear();
    REQUIRE(cache.get(100, load(100)));  // the next insert evicts down to the budget
    CHECK(cache.stats().bytes_in_use <= 300);
  }

  TEST_CASE("invalidation makes stale level-1 copies unreachable - on every thread") {
    Cache cache;
    CountingLoader load;
    REQUIRE(**cache.get(1, load(1)) == "1#1");
    std::string seen_by_worker;
    std::mutex mu;
    std::condition_variable cv;
    int phase = 0;
    std::thread worker([&] {
      CHECK(**cache.get(1, load(1)) == "1#1");  // now in the worker's level 1 too
      std::unique_lock lock(mu);
      phase = 1;
      cv.notify_all();
      cv.wait(lock, [&] { return phase == 2; });
      seen_by_worker = **cache.get(1, load(1));
    });
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return phase == 1; });
    }
    CHECK(cache.invalidate(1) == 1);
    CHECK(**cache.get(1, load(1)) == "1#2");
    {
      std::lock_guard lock(mu);
      phase = 2;
    }
    cv.notify_all();
    worker.join();
    CHECK(seen_by_worker == "1#2");
    CHECK(load.calls == 2);
  }

  TEST_CASE("invalidation by tag and by predicate drops exactly the matching entries") {
    Cache cache;
    CountingLoader shader_a, shader_b;
    shader_a.tags = {10};
    shader_b.tags = {20, 30};
    for (int k = 0; k < 5; ++k) REQUIRE(cache.get(k, shader_a(k)));
    for (int k = 5; k < 8; ++k) REQUIRE(cache.get(k, shader_b(k)));

    CHECK(cache.invalidate_tag(10) == 5);
    CHECK(cache.invalidate_tag(10) == 0);
    for (int k = 5; k < 8; ++k) CHECK(cache.peek(k).has_value());
    for (int k = 0; k < 5; ++k) CHECK_FALSE(cache.peek(k).has_value());
    CHECK(cache.invalidate_tag(30) == 3);
    CHECK(cache.stats().entries == 0);

    for (int k = 0; k < 10; ++k) REQUIRE(cache.get(k, shader_a(k)));
    CHECK(cache.invalidate_if([](int k) { return k % 2 == 0; }) == 5);
    for (int k = 0; k < 10; ++k) CHECK(cache.peek(k).has_value() == (k % 2 == 1));
    CHECK(cache.clear() == 5);
    CHECK(cache.stats().invalidations == 5 + 3 + 5 + 5);
  }

  // Runs get(1) on a thread whose load blocks until the test has done `during_load`, then returns
  // `value` with `tags`. Returns what the requester was served.
  std::string load_around(Cache & cache, std::string value, std::vector<Tag> tags,
                          const std::function<void()>& during_load) {
    std::mutex mu;
    std::condition_variable cv;
    bool loading = false, release = false;
    std::string served;
    std::thread requester([&] {
      auto r = cache.get(1, [&]() -> Result<Loaded<std::string>> {
        std::unique_lock lock(mu);
        loading = true;
        cv.notify_all();
        cv.wait(lock, [&] { return release; });
        return Loaded<std::string>{value, 10, tags};
      });
      if (r) served = **r;
    });
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return loading; });
    }
    during_load();
    {
      std::lock_guard lock(mu);
      release = true;
    }
    cv.notify_all();
    requester.join();
    return served;
  }

  TEST_CASE("a key invalidated while it loads is served to its requester but not cached") {
    Cache cache;
    CHECK(load_around(cache, "old", {}, [&] { cache.invalidate(1); }) == "old");
    CHECK_FALSE(cache.peek(1).has_value());
    CountingLoader load;
    CHECK(**cache.get(1, load(1)) == "1#1");
  }

  TEST_CASE("a tag invalidated while a key of that tag loads keeps the old load out of the cache") {
    Cache cache;
    CHECK(load_around(cache, "read before the edit", {77}, [&] {
            CHECK(cache.invalidate_tag(77) == 0);  // nothing published yet
          }) == "read before the edit");
    CHECK_FALSE(cache.peek(1).has_value());
    // A load that begins after the invalidation is cached as usual.
    CountingLoader load;
    load.tags = {77};
    CHECK(**cache.get(1, load(1)) == "1#1");
    CHECK(cache.peek(1).has_value());
  }

  TEST_CASE("repeated tags from a loader are harmless") {
    Cache cache({.budget_bytes = 250, .l1_entries = 0, .shards = 1});
    CountingLoader load;
    load.tags = {5, 5, 6, 5};
    for (int k = 0; k < 10; ++k) REQUIRE(cache.get(k, load(k)));  // evicts entries with repeated tags
    const auto entries = cache.stats().entries;
    CHECK(entries >= 1);
    CHECK(cache.invalidate_tag(5) == entries);
    CHECK(cache.stats().entries == 0);
  }

  TEST_CASE("a loader throwing a non-std exception fails its request and its waiters - never hangs") {
    Cache cache;
    auto r = cache.get(3, []() -> Result<Loaded<std::string>> { throw 42; });
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("unknown exception") != std::string::npos);
    CountingLoader load;
    CHECK(**cache.get(3, load(3)) == "3#1");
  }

  TEST_CASE("release_this_thread drops the thread's level-1 pins") {
    Cache cache;
    CountingLoader load;
    REQUIRE(cache.get(1, load(1)));
    cache.invalidate(1);
    CHECK(cache.stats().bytes_pinned_only == 100);  // this thread's level 1 still holds it
    cache.release_this_thread();
    CHECK(cache.stats().bytes_pinned_only == 0);
    CHECK(cache.stats().bytes_in_use == 0);
  }

  TEST_CASE("structured keys with a custom hash work") {
    struct Key {
      std::string shader;
      int revision;
      bool operator==(const Key&) const = default;
    };
    struct KeyHash {
      std::size_t operator()(const Key& k) const {
        return std::hash<std::string>{}(k.shader) ^ std::size_t(k.revision);
      }
    };
    TwoLevelCache<Key, int, KeyHash> cache;
    int calls = 0;
    auto loader = [&]() -> Result<Loaded<int>> { return Loaded<int>{++calls, 4, {}}; };
    CHECK(**cache.get({"Lit", 7}, loader) == 1);
    CHECK(**cache.get({"Lit", 8}, loader) == 2);
    CHECK(**cache.get({"Lit", 7}, loader) == 1);
  }
}

namespace {

// A value that counts its destructions: what a borrowed pointer must not see happen under it.
struct Tracked {
  int key = 0;
  std::shared_ptr<std::atomic<int>> destroyed;
  Tracked(int k, std::shared_ptr<std::atomic<int>> d) : key(k), destroyed(std::move(d)) {}
  Tracked(Tracked&& o) noexcept : key(o.key), destroyed(std::move(o.destroyed)) {}
  ~Tracked() {
    if (destroyed) ++*destroyed;
  }
};

}  // namespace

TEST_SUITE("cache") {
  TEST_CASE("a borrowed value outlives eviction and invalidation until the thread's next call on the cache") {
    for (std::size_t l1 : {std::size_t{2}, std::size_t{0}}) {
      CAPTURE(l1);
      auto destroyed = std::make_shared<std::atomic<int>>(0);
      // Room for one entry: loading a second evicts the first unless something pins it.
      TwoLevelCache<int, Tracked> cache({.budget_bytes = 100, .l1_entries = l1, .shards = 1});
      auto load = [&](int key) {
        return [&destroyed, key]() -> Result<Loaded<Tracked>> {
          return Loaded<Tracked>{Tracked(key, destroyed), 100, {}};
        };
      };
      auto first = cache.borrow(1, load(1));
      REQUIRE(first);
      const Tracked* borrowed = *first;
      // Another thread loads a second key (evicting the first from level 2) and invalidates the first.
      std::thread([&] {
        REQUIRE(cache.get(2, load(2)));
        cache.invalidate(1);
        cache.release_this_thread();
      }).join();
      CHECK(*destroyed == 0);
      CHECK(borrowed->key == 1);
      // This thread's next call lets go of it: nothing else holds it.
      auto second = cache.borrow(2, load(2));
      REQUIRE(second);
      CHECK((*second)->key == 2);
      CHECK(*destroyed == 1);
    }
  }

  TEST_CASE("a borrowed level-2 hit outlives eviction and invalidation until the thread's next call") {
    auto destroyed = std::make_shared<std::atomic<int>>(0);
    // Level 1 off and room for one entry: the second borrow of key 1 is a level-2 hit that only
    // the thread's hazard keeps.
    TwoLevelCache<int, Tracked> cache({.budget_bytes = 100, .l1_entries = 0, .shards = 1});
    auto load = [&](int key) {
      return [&destroyed, key]() -> Result<Loaded<Tracked>> {
        return Loaded<Tracked>{Tracked(key, destroyed), 100, {}};
      };
    };
    REQUIRE(cache.borrow(1, load(1)));
    auto hit = cache.borrow(1, load(1));
    REQUIRE(hit);
    CHECK(cache.stats().l2_hits == 1);
    const Tracked* borrowed = *hit;
    std::thread([&] {
      REQUIRE(cache.get(2, load(2)));  // evicts key 1
      cache.invalidate(1);
      cache.release_this_thread();
    }).join();
    CHECK(cache.stats().evictions == 1);
    CHECK(*destroyed == 0);
    CHECK(borrowed->key == 1);
    CHECK_FALSE(cache.peek(1).has_value());
    // The next call lets go of it; the next change to the cache releases it.
    REQUIRE(cache.borrow(2, load(2)));
    cache.invalidate(3);
    CHECK(*destroyed == 1);
  }

  TEST_CASE("values borrowed into slots stay valid until their own slot is used again") {
    // A destruction count per key of interest: other keys come and go as the budget makes them.
    std::map<int, std::shared_ptr<std::atomic<int>>> destroyed;
    for (int k : {0, 1, 2}) destroyed[k] = std::make_shared<std::atomic<int>>(0);  // 0: every other key
    TwoLevelCache<int, Tracked> cache({.budget_bytes = 200, .l1_entries = 0, .shards = 1});
    auto load = [&](int key) {
      auto counter = destroyed[key == 1 || key == 2 ? key : 0];
      return [counter, key]() -> Result<Loaded<Tracked>> { return Loaded<Tracked>{Tracked(key, counter), 100, {}}; };
    };
    REQUIRE(cache.get(1, load(1)));
    REQUIRE(cache.get(2, load(2)));
    auto slots = cache.borrow_slots(2);
    auto first = cache.borrow_into(slots, 0, 1, load(1));
    auto second = cache.borrow_into(slots, 1, 2, load(2));
    REQUIRE(first);
    REQUIRE(second);
    CHECK(cache.stats().l2_hits == 2);  // both level-2 hits: kept by the slots' hazards
    const Tracked* one = *first;
    const Tracked* two = *second;
    auto loads = [&] {
      std::vector<std::function<Result<Loaded<Tracked>>()>> l;
      for (int k = 3; k <= 6; ++k) l.push_back(load(k));
      return l;
    }();
    std::thread([&] {
      for (int k = 3; k <= 6; ++k) REQUIRE(cache.get(k, loads[k - 3]));  // room for two: 1 and 2 go
      cache.invalidate(1);
    }).join();
    CHECK_FALSE(cache.peek(1).has_value());
    CHECK_FALSE(cache.peek(2).has_value());
    CHECK(*destroyed[1] == 0);
    CHECK(*destroyed[2] == 0);
    CHECK(one->key == 1);
    CHECK(two->key == 2);
    // Slot 0 used again: key 1 is let go (released by the next change to the cache); slot 1 keeps 2.
    auto third = cache.borrow_into(slots, 0, 7, load(7));
    REQUIRE(third);
    CHECK((*third)->key == 7);
    cache.invalidate(100);
    CHECK(*destroyed[1] == 1);
    CHECK(*destroyed[2] == 0);
    CHECK(two->key == 2);
    slots = {};  // destroyed slots keep nothing
    cache.invalidate(100);
    CHECK(*destroyed[2] == 1);
  }

  TEST_CASE("borrow slots work only with their own cache and index") {
    Cache cache;
    Cache other;
    CountingLoader load;
    auto slots = other.borrow_slots(1);
    auto wrong_cache = cache.borrow_into(slots, 0, 1, load(1));
    REQUIRE_FALSE(wrong_cache);
    CHECK(wrong_cache.error().message.find("another cache") != std::string::npos);
    auto mine = cache.borrow_slots(1);
    CHECK_FALSE(cache.borrow_into(mine, 1, 1, load(1)));
    CHECK(load.calls == 0);
    auto ok = cache.borrow_into(mine, 0, 1, load(1));
    REQUIRE(ok);
    CHECK(**ok == "1#1");
  }

  TEST_CASE("a borrowed level-1 hit is the value get() gives - and counts as a level-1 hit") {
    Cache cache;
    CountingLoader load;
    auto a = cache.borrow(1, load(1));
    REQUIRE(a);
    auto b = cache.borrow(1, load(1));
    REQUIRE(b);
    CHECK(*a == *b);
    auto pinned = cache.get(1, load(1));
    REQUIRE(pinned);
    CHECK(pinned->get() == *b);
    CHECK(load.calls == 1);
    CHECK(cache.stats().l1_hits == 2);
    // An error is an error, and nothing is kept for it.
    auto failed = cache.borrow(9, []() -> Result<Loaded<std::string>> { return make_error("no such key"); });
    REQUIRE_FALSE(failed);
    CHECK(failed.error().message == "no such key");
  }
}

TEST_SUITE("cache") {
  TEST_CASE("level 1 holds a working set of its size - every second look at it is a level-1 hit") {
    Cache cache({.budget_bytes = 1 << 20, .l1_entries = 64, .shards = 4});
    CountingLoader load;
    for (int round = 0; round < 2; ++round)
      for (int key = 0; key < 24; ++key) REQUIRE(cache.borrow(key, load(key)));
    const auto s = cache.stats();
    CHECK(s.misses == 24);
    CHECK(s.l1_hits == 24);  // none went to level 2 the second time
    CHECK(s.l2_hits == 0);
    // Past its size level 1 keeps some and level 2 serves the rest: never a wrong value.
    for (int key = 0; key < 512; ++key) {
      auto v = cache.borrow(key, load(key));
      REQUIRE(v);
      CHECK((*v)->rfind(std::to_string(key) + "#", 0) == 0);
    }
  }
}
