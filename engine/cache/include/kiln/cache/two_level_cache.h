#pragma once
// TwoLevelCache<Key, Value>: the in-memory cache that shader variants, script pages and texture
// tiles go through.
//
// Level 1 is a few entries per thread, read without any lock. Level 2 is global, sharded, and holds
// everything under a byte budget. A level-2 hit takes no lock either: it probes the shard's index
// (detail/read_index.h), whose unlinked nodes are freed by epoch reclamation, and marks the entry
// used. Eviction is CLOCK: the hand passes over entries used since it last came by, and over
// entries still pinned elsewhere (evicting those would free nothing), giving both a second chance.
// Loading is single-flight: on a miss the key is marked loading and the loader runs with no lock
// held; other threads that want that key wait for it, threads that want other keys load in
// parallel. A loader's error reaches every waiter and is not cached.
//
// Values are handed out pinned (Pinned<Value> is a shared_ptr): eviction and invalidation never free
// what a reader holds. borrow() hands out a bare pointer instead, kept alive by the calling
// thread's level-1 pin (one reference per thread per entry, taken when level 1 is filled, not per
// hit) or, for a level-2 hit level 1 does not keep, by the thread's hazard: the entry it names is
// not released while named. A borrowed hit writes nothing another thread reads, so hits on keys
// every thread shares scale with the threads. A borrowed pointer may outlive nothing but this
// thread's next call on this cache (any member function), release_this_thread() and the thread
// itself; whoever keeps a value longer takes a Pinned handle from get(). The budget counts every
// live value, also ones that left level 2 but are still pinned or borrowed;
// stats().bytes_pinned_only says how much of the use that is.
//
// Thread-safety: every member function may be called from any thread. A loader runs on the calling
// thread, holds no cache lock, and may use the cache for other keys (not for its own key).
// Lock order: shard lock, then a flight's lock; the eviction lock is taken before shard locks; the
// lock of removed values waiting on hazards is taken with no shard lock, before the accounting's.
// Each thread's level 1 keeps up to `l1_entries` (rounded up to a power of two) values pinned until
// that thread touches the cache again after an invalidation, calls release_this_thread(), or exits
// — also after the cache itself is destroyed, so a Value's destructor must not rely on the cache's
// owner. Worker pools call
// release_this_thread() when they stop using a cache.

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kiln/cache/borrow_slots.h"
#include "kiln/cache/cache_stats.h"
#include "kiln/cache/detail/cache_accounting.h"
#include "kiln/cache/detail/read_index.h"
#include "kiln/cache/detail/thread_slots.h"
#include "kiln/core/result.h"

namespace kiln::cache {

// A tag groups entries for invalidation: "every tile of image X", "every variant of shader S".
using Tag = std::uint64_t;

template <class Value>
using Pinned = std::shared_ptr<const Value>;

// What a loader returns: the value, what it costs in memory, and the tags it belongs to.
template <class Value>
struct Loaded {
  Value value;
  std::size_t bytes = 0;
  std::vector<Tag> tags;
};

struct TwoLevelCacheOptions {
  std::size_t budget_bytes = std::size_t{256} << 20;
  std::size_t l1_entries = 8;  // per thread, rounded up to a power of two; 0 disables level 1
  std::size_t shards = 16;
};

template <class Key, class Value, class Hash = std::hash<Key>, class Eq = std::equal_to<Key>>
class TwoLevelCache {
 public:
  using Handle = Pinned<Value>;

  explicit TwoLevelCache(TwoLevelCacheOptions options = {})
      : options_(options),
        shards_(std::max<std::size_t>(1, options.shards)),
        lease_(detail::acquire_slot_index()),
        accounting_(std::make_shared<detail::CacheAccounting>()) {
    accounting_->budget.store(options.budget_bytes, std::memory_order_relaxed);
  }
  ~TwoLevelCache() { detail::release_slot_index(lease_.index); }
  TwoLevelCache(const TwoLevelCache&) = delete;
  TwoLevelCache& operator=(const TwoLevelCache&) = delete;

  // Returns the value of `key`, calling `load()` (-> Result<Loaded<Value>>) only on a miss.
  template <class Loader>
  Result<Handle> get(const Key& key, Loader&& load) {
    const std::size_t hash = hasher_(key);
    const std::uint64_t generation = generation_.load(std::memory_order_acquire);
    ThreadLevel* l1 = thread_level();
    if (Handle h = l1->find(hash, key, generation)) return h;
    Result<Handle> result = get_shared(key, hash, *l1->counters, std::forward<Loader>(load));
    if (result) l1->insert(hash, key, *result, generation);
    return result;
  }

  // The value of `key`, as get(), borrowed: valid until this thread's next call on this cache (see
  // the header comment). A level-1 hit changes no reference count.
  template <class Loader>
  Result<const Value*> borrow(const Key& key, Loader&& load) {
    const std::size_t hash = hasher_(key);
    const std::uint64_t generation = generation_.load(std::memory_order_acquire);
    ThreadLevel* l1 = thread_level();
    l1->held.reset();  // the previous call's borrow, if level 1 did not keep it
    l1->counters->hazard.store(nullptr, std::memory_order_release);
    if (const Value* v = l1->find_borrowed(hash, key, generation)) return v;
    // A level-2 hit level 1 will not keep is kept by the thread's hazard instead.
    if (!l1->fills(generation)) {
      if (const Value* v = borrow_level2(hash, key, *l1->counters)) return v;
    }
    Result<Handle> result = get_shared(key, hash, *l1->counters, std::forward<Loader>(load));
    if (!result) return result.error();
    // Level 1 keeps the pin; where it cannot (an invalidation since `generation`, no level 1),
    // the thread holds this one value until its next call.
    if (!l1->insert(hash, key, *result, generation)) l1->held = *result;
    return result->get();
  }

  // Slots for the calling thread to keep several borrowed values in at once (borrow_slots.h).
  BorrowSlots borrow_slots(std::size_t n) { return BorrowSlots(accounting_, n); }

  // The value of `key`, kept in slot `i` of `slots` (this cache's) until that slot is used again
  // or released. Level 2 directly: a reader that keeps its own slots needs no level 1, and a hit
  // writes nothing another thread reads.
  template <class Loader>
  Result<const Value*> borrow_into(BorrowSlots& slots, std::size_t i, const Key& key, Loader&& load) {
    if (slots.accounting_ != accounting_ || i >= slots.size())
      return make_error("borrow slots of another cache, or past their end");
    slots.release(i);
    const std::size_t hash = hasher_(key);
    detail::ThreadCounters& slot = *slots.slots_[i];
    if (const Value* v = borrow_level2(hash, key, slot)) return v;
    Result<Handle> result = get_shared(key, hash, slot, std::forward<Loader>(load));
    if (!result) return result.error();
    slots.held_[i] = *result;
    return result->get();
  }

  // The value of `key` if either level has it; never loads, and counts no hit.
  std::optional<Handle> peek(const Key& key) {
    const std::size_t hash = hasher_(key);
    const std::uint64_t generation = generation_.load(std::memory_order_acquire);
    if (Handle h = thread_level()->find(hash, key, generation, /*count=*/false)) return h;
    // Level 2's index holds every published entry: no need to look under the lock.
    if (Handle h = shard_for(hash).index.find(hash, key, /*touch=*/false)) return h;
    return std::nullopt;
  }

  // Drops `key`. A load of it in flight completes for its waiters but is not cached.
  std::size_t invalidate(const Key& key) {
    return invalidate_where(
        [&](Shard& shard, Dropped& dropped) {
          auto it = shard.map.find(key);
          if (it == shard.map.end()) return std::size_t{0};
          return erase(shard, it, dropped);
        },
        &shard_for(hasher_(key)));
  }

  // Drops every entry carrying `tag`; returns how many.
  std::size_t invalidate_tag(Tag tag) {
    // Loads in flight carry no tags yet: record the invalidation first, so that one that began
    // before it is not cached when it completes.
    tag_epochs_.bump(tag);
    return invalidate_where([&](Shard& shard, Dropped& dropped) {
      auto t = shard.tags.find(tag);
      if (t == shard.tags.end()) return std::size_t{0};
      std::vector<const Key*> keys(t->second.begin(), t->second.end());
      std::size_t n = 0;
      for (const Key* k : keys) n += erase(shard, shard.map.find(*k), dropped);
      return n;
    });
  }

  // Drops the entries carrying `tag` whose key satisfies `pred`; costs O(entries with that tag),
  // not O(entries). Unlike invalidate_tag, loads in flight are left alone: `pred` selects by key.
  // `on_drop(key, value)` sees each dropped value after the locks are released.
  template <class Pred, class OnDrop = void (*)(const Key&, const Handle&)>
  std::size_t invalidate_tag_if(
      Tag tag, Pred&& pred, OnDrop on_drop = [](const Key&, const Handle&) {}) {
    std::vector<std::pair<Key, Handle>> dropped_values;
    const std::size_t n = invalidate_where([&](Shard& shard, Dropped& dropped) {
      auto t = shard.tags.find(tag);
      if (t == shard.tags.end()) return std::size_t{0};
      std::vector<const Key*> keys(t->second.begin(), t->second.end());
      std::size_t count = 0;
      for (const Key* k : keys) {
        if (!pred(*k)) continue;
        auto it = shard.map.find(*k);
        if (it->second.value) dropped_values.emplace_back(*k, it->second.value);
        count += erase(shard, it, dropped);
      }
      return count;
    });
    for (const auto& [key, value] : dropped_values) on_drop(key, value);
    return n;
  }

  // Drops every entry whose key satisfies `pred`; returns how many. Scans everything.
  template <class Pred>
  std::size_t invalidate_if(Pred&& pred) {
    return invalidate_where([&](Shard& shard, Dropped& dropped) {
      std::size_t n = 0;
      for (auto it = shard.map.begin(); it != shard.map.end();) {
        auto next = std::next(it);
        if (pred(it->first)) n += erase(shard, it, dropped);
        it = next;
      }
      return n;
    });
  }

  std::size_t clear() {
    return invalidate_if([](const Key&) { return true; });
  }

  // Drops the calling thread's level 1 of this cache and the pins it holds.
  void release_this_thread() {
    auto& slots = detail::t_slots;
    if (lease_.index < slots.size() && slots[lease_.index] && slots[lease_.index]->owner_uid == lease_.uid)
      slots[lease_.index].reset();
  }

  // Changes the budget; shrinking it evicts at once.
  void set_budget(std::size_t bytes) {
    accounting_->budget.store(bytes, std::memory_order_relaxed);
    evict_if_over_budget();
  }

  TwoLevelCacheStats stats() const {
    TwoLevelCacheStats s = accounting_->snapshot();  // level-1 hits and lock-free level-2 hits
    for (const Shard& shard : shards_) {
      std::lock_guard lock(shard.mu);
      s.l2_hits += shard.l2_hits;
      s.misses += shard.misses;
      s.load_waits += shard.load_waits;
      s.evictions += shard.evictions;
      s.entries += shard.lru.size();
      s.bytes_resident += shard.resident_bytes;
    }
    s.bytes_pinned_only = s.bytes_in_use > s.bytes_resident ? s.bytes_in_use - s.bytes_resident : 0;
    return s;
  }

 private:
  struct Flight {
    std::uint64_t tag_epoch = 0;  // tag invalidations up to this one happened before the load began
    std::mutex mu;
    std::condition_variable cv;
    std::optional<Result<Handle>> result;

    void complete(Result<Handle> r) {
      {
        std::lock_guard lock(mu);
        result.emplace(std::move(r));
      }
      cv.notify_all();
    }
    Result<Handle> wait() {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return result.has_value(); });
      return *result;
    }
  };

  using Index = detail::ReadIndex<Key, Value, Eq>;
  // Unlinked index nodes hold no value, only a key and a weak reference: freeing them in batches
  // keeps the epoch domain's lock off most misses.
  static constexpr std::size_t kCollectAt = 64;
  struct DroppedValue {
    const void* node;  // what a borrowing thread names as its hazard
    Handle value;
  };
  using Dropped = std::vector<DroppedValue>;

  struct Entry {
    std::shared_ptr<Flight> flight;        // set while loading
    Handle value;                          // set once loaded
    typename Index::Node* node = nullptr;  // once loaded: the value's node in the shard's index
    std::size_t bytes = 0;
    std::vector<Tag> tags;
    typename std::list<const Key*>::iterator lru;  // valid once loaded; eviction's clock, hand at the back
  };

  // A hit reads `index` without the lock. Everything else is guarded by `mu`: the map of entries
  // and flights, the eviction order, tags, and the index's writes.
  struct alignas(64) Shard {  // own cache lines: threads on different shards do not share them
    mutable std::mutex mu;
    Index index;
    std::unordered_map<Key, Entry, Hash, Eq> map;  // node-based: key addresses are stable
    std::list<const Key*> lru;
    std::unordered_map<Tag, std::unordered_set<const Key*>> tags;
    std::size_t resident_bytes = 0;
    std::uint64_t l2_hits = 0, misses = 0, load_waits = 0, evictions = 0;
  };

  // Level 1 of one thread. Only that thread touches the slots; counters are read by stats().
  // Two-way set associative, indexed by the key's hash: a lookup compares two slots whatever the
  // size, so a level 1 can hold a frame's working set (the variants of every material drawn)
  // instead of a handful. Within a set the newer entry is first; an insert into a full set drops
  // the older one.
  struct ThreadLevel final : detail::ThreadSlot {
    struct Slot {
      std::size_t hash = 0;
      std::optional<Key> key;
      Handle value;
      bool holds(std::size_t h, const Key& k) const { return hash == h && key && Eq{}(*key, k); }
    };
    std::vector<Slot> slots;  // a power of two, in pairs; empty when level 1 is off
    std::uint64_t generation = 0;
    Handle held;  // what the last borrow() handed out when no slot kept it
    std::shared_ptr<detail::CacheAccounting> accounting;
    detail::ThreadCounters* counters;

    ThreadLevel(std::size_t n, std::shared_ptr<detail::CacheAccounting> acct)
        : slots(n == 0 ? 0 : std::bit_ceil(std::max<std::size_t>(n, 2))),
          accounting(std::move(acct)),
          counters(accounting->register_thread()) {}
    ~ThreadLevel() override { accounting->retire_thread(counters); }

    // The first slot of `hash`'s pair; other bits of the mixed hash than the shard's.
    std::size_t pair_of(std::size_t hash) const {
      const std::uint64_t h = std::uint64_t(hash) * 0x9E3779B97F4A7C15ull;
      return 2 * ((h >> 20) & (slots.size() / 2 - 1));
    }
    const Slot* find_slot(std::size_t hash, const Key& key, std::uint64_t current, bool count = true) {
      if (generation != current) reset(current);
      if (slots.empty()) return nullptr;
      const std::size_t first = pair_of(hash);
      for (std::size_t i = first; i < first + 2; ++i) {
        if (slots[i].holds(hash, key)) {
          if (count) counters->bump_l1_hit();
          return &slots[i];
        }
      }
      return nullptr;
    }
    Handle find(std::size_t hash, const Key& key, std::uint64_t current, bool count = true) {
      const Slot* s = find_slot(hash, key, current, count);
      return s ? s->value : nullptr;
    }
    // Would insert() with `seen` keep a value?
    bool fills(std::uint64_t seen) const { return !slots.empty() && seen >= generation; }
    const Value* find_borrowed(std::size_t hash, const Key& key, std::uint64_t current) {
      const Slot* s = find_slot(hash, key, current);
      return s ? s->value.get() : nullptr;
    }
    // `seen` is the generation read before the value was fetched: if an invalidation happened since,
    // the value may be stale and must not enter level 1. False: not kept.
    bool insert(std::size_t hash, const Key& key, const Handle& value, std::uint64_t seen) {
      if (slots.empty()) return false;
      if (seen != generation) {
        if (seen < generation) return false;
        reset(seen);
      }
      Slot& newer = slots[pair_of(hash)];
      Slot& older = slots[pair_of(hash) + 1];
      if (older.holds(hash, key)) {
        older.value = value;
        return true;
      }
      if (newer.key && !newer.holds(hash, key)) older = std::move(newer);
      newer.hash = hash;
      newer.key.emplace(key);
      newer.value = value;
      return true;
    }
    void reset(std::uint64_t current) {
      for (Slot& s : slots) s = Slot{};
      generation = current;
    }
  };

  // The calling thread's level 1 of this cache (without slots when l1_entries == 0) and counters.
  ThreadLevel* thread_level() {
    auto& slots = detail::t_slots;
    if (slots.size() <= lease_.index) slots.resize(lease_.index + 1);
    auto& slot = slots[lease_.index];
    if (!slot || slot->owner_uid != lease_.uid) {
      slot = std::make_unique<ThreadLevel>(options_.l1_entries, accounting_);
      slot->owner_uid = lease_.uid;
    }
    return static_cast<ThreadLevel*>(slot.get());
  }

  Shard& shard_for(std::size_t hash) {
    // Mix the hash: std::hash of integers is the identity, whose low bits may all agree.
    std::uint64_t h = hash * 0x9E3779B97F4A7C15ull;
    return shards_[(h >> 32) % shards_.size()];
  }

  // A level-2 hit kept by `slot`'s hazard (the slot must hold none yet), or null on a miss.
  const Value* borrow_level2(std::size_t hash, const Key& key, detail::ThreadCounters& slot) {
    Shard& shard = shard_for(hash);
    detail::EpochReader reading;
    const auto* node = shard.index.find_node(hash, key, /*touch=*/true);
    if (!node) return nullptr;
    // Published before `alive` is read: a remover clears `alive`, then reads the hazards, so one of
    // the two sees the other (release_dropped()).
    accounting_->note_hazard_use();
    slot.hazard.store(node, std::memory_order_seq_cst);
    if (!node->alive.load(std::memory_order_seq_cst)) {
      slot.hazard.store(nullptr, std::memory_order_release);
      return nullptr;
    }
    slot.bump_l2_hit();
    return node->raw;
  }

  template <class Loader>
  Result<Handle> get_shared(const Key& key, std::size_t hash, detail::ThreadCounters& counters, Loader&& load) {
    Shard& shard = shard_for(hash);
    if (Handle h = shard.index.find(hash, key, /*touch=*/true)) {
      counters.bump_l2_hit();
      return h;
    }
    std::unique_lock lock(shard.mu);
    auto it = shard.map.find(key);
    if (it != shard.map.end()) {
      Entry& e = it->second;
      if (e.value) {  // published since the index was read
        ++shard.l2_hits;
        e.node->referenced.store(true, std::memory_order_relaxed);
        return e.value;
      }
      std::shared_ptr<Flight> flight = e.flight;
      ++shard.load_waits;
      lock.unlock();
      const auto waited_from = std::chrono::steady_clock::now();
      Result<Handle> waited = flight->wait();
      accounting_->load_wait_ns.fetch_add(std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                            std::chrono::steady_clock::now() - waited_from)
                                                            .count()),
                                          std::memory_order_relaxed);
      return waited;
    }
    ++shard.misses;
    auto flight = std::make_shared<Flight>();
    flight->tag_epoch = tag_epochs_.now();  // before the loader reads anything
    shard.map.emplace(key, Entry{flight, nullptr, 0, {}, {}});
    lock.unlock();

    // Whatever happens from here on, the flight completes and the loading entry goes away unless
    // it was published: a waiter must never hang on a load that threw.
    bool cached = false;
    std::optional<Result<Handle>> result;
    try {
      result.emplace(load_and_publish(key, hash, shard, flight, std::forward<Loader>(load), cached));
    } catch (...) {
      result.emplace(make_error("out of memory while caching a loaded value"));
    }
    if (!cached) forget_flight(shard, key, flight);
    flight->complete(*result);
    if (cached) {
      evict_if_over_budget();
      reclaim();  // a table the index outgrew
    }
    return std::move(*result);
  }

  template <class Loader>
  Result<Handle> load_and_publish(const Key& key, std::size_t hash, Shard& shard, const std::shared_ptr<Flight>& flight,
                                  Loader&& load, bool& cached) {
    Result<Loaded<Value>> loaded = run_loader(std::forward<Loader>(load));
    if (!loaded) return loaded.error();
    Loaded<Value>& l = *loaded;
    std::sort(l.tags.begin(), l.tags.end());
    l.tags.erase(std::unique(l.tags.begin(), l.tags.end()), l.tags.end());
    Handle value = accounting_->template charge<Value>(std::move(l.value), l.bytes);
    // A tag invalidated while this loaded may mean the loader read old data: serve, don't cache.
    if (tag_epochs_.invalidated_since(l.tags, flight->tag_epoch)) return value;
    std::lock_guard lock(shard.mu);
    // Still ours unless an invalidation dropped the key while it loaded; then serve, don't cache.
    auto again = shard.map.find(key);
    if (again == shard.map.end() || again->second.flight != flight) return value;
    Entry& e = again->second;
    shard.lru.push_front(&again->first);
    e.lru = shard.lru.begin();
    e.value = value;
    e.node = shard.index.insert(hash, again->first, value, retired_);
    e.bytes = l.bytes;
    shard.resident_bytes += e.bytes;
    e.tags = std::move(l.tags);
    for (Tag t : e.tags) shard.tags[t].insert(&again->first);
    e.flight.reset();  // last: until here forget_flight() can still recognise the entry as ours
    cached = true;
    return value;
  }

  // Removes the entry of a load that did not publish, if no invalidation removed it already.
  void forget_flight(Shard& shard, const Key& key, const std::shared_ptr<Flight>& flight) {
    Dropped dropped;  // stays empty: a flight's entry holds no value
    std::lock_guard lock(shard.mu);
    auto it = shard.map.find(key);
    if (it != shard.map.end() && it->second.flight == flight) erase(shard, it, dropped);
  }

  template <class Loader>
  Result<Loaded<Value>> run_loader(Loader&& load) {
    accounting_->loads.fetch_add(1, std::memory_order_relaxed);
    try {
      Result<Loaded<Value>> r = std::forward<Loader>(load)();
      if (!r) accounting_->load_errors.fetch_add(1, std::memory_order_relaxed);
      return r;
    } catch (const std::exception& e) {
      accounting_->load_errors.fetch_add(1, std::memory_order_relaxed);
      return make_error(std::string("loader failed: ") + e.what());
    } catch (...) {
      accounting_->load_errors.fetch_add(1, std::memory_order_relaxed);
      return make_error("loader failed with an unknown exception");
    }
  }

  // Removes a loaded or loading entry; a loaded value is moved to `dropped`, to be released by
  // release_dropped() after the shard lock, and its index node retired. Returns 1 if a loaded
  // entry went away.
  std::size_t erase(Shard& shard, typename std::unordered_map<Key, Entry, Hash, Eq>::iterator it, Dropped& dropped) {
    Entry& e = it->second;
    std::size_t removed = 0;
    if (e.value) {
      shard.index.erase(e.node, retired_);
      dropped.push_back({e.node, std::move(e.value)});
      shard.lru.erase(e.lru);
      for (Tag t : e.tags) {
        auto s = shard.tags.find(t);
        if (s == shard.tags.end()) continue;
        s->second.erase(&it->first);
        if (s->second.empty()) shard.tags.erase(s);
      }
      shard.resident_bytes -= e.bytes;
      removed = e.flight ? 0 : 1;
    }
    shard.map.erase(it);
    return removed;
  }

  // Runs `step(shard)` on one shard or all, then bumps the generation so that every
  // thread's level 1 forgets what it had (it may hold the entry even after level 2 evicted it).
  template <class Step>
  std::size_t invalidate_where(Step&& step, Shard* only = nullptr) {
    std::size_t n = 0;
    Dropped dropped;
    for (Shard& shard : shards_) {
      if (only && &shard != only) continue;
      std::lock_guard lock(shard.mu);
      n += step(shard, dropped);
    }
    generation_.fetch_add(1, std::memory_order_acq_rel);
    accounting_->invalidations.fetch_add(n, std::memory_order_relaxed);
    release_dropped(std::move(dropped));
    return n;
  }

  // Lets go of values removed from level 2, with no cache lock held (their destructors may use
  // the cache), except those a thread's borrow() still names as its hazard: those wait in
  // `hazarded_` until a later reclaim() finds them unnamed.
  void release_dropped(Dropped dropped) {
    if (!dropped.empty()) {
      const std::vector<const void*> hazards = accounting_->hazards();
      std::lock_guard lock(hazarded_mu_);
      for (DroppedValue& d : dropped)
        if (std::find(hazards.begin(), hazards.end(), d.node) != hazards.end()) hazarded_.push_back(std::move(d));
    }
    dropped.clear();  // the values no one borrows go here
    reclaim();
  }

  // Frees the index nodes and tables no reader can reach any more, and the values no hazard names.
  void reclaim() {
    if (retired_.size() >= kCollectAt) retired_.collect();
    Dropped unnamed;
    {
      std::lock_guard lock(hazarded_mu_);
      if (hazarded_.empty()) return;
      const std::vector<const void*> hazards = accounting_->hazards();
      std::size_t kept = 0;
      for (DroppedValue& d : hazarded_) {
        if (std::find(hazards.begin(), hazards.end(), d.node) != hazards.end())
          hazarded_[kept++] = std::move(d);
        else
          unnamed.push_back(std::move(d));
      }
      hazarded_.resize(kept);
    }
  }

  // Whoever pushes the cache over budget evicts, unless another thread already is; the loop
  // re-checks after the lock is released so that an insert racing with the end of an eviction is
  // not left over budget. The evicting thread may be descheduled while others keep inserting, so
  // past budget + 1/8 an inserting thread waits for the eviction lock instead of skipping it.
  // Evicted values are released after the lock: their destructors may use the cache.
  void evict_if_over_budget() {
    Dropped evicted;
    std::uint64_t evicted_bytes = 0;  // live until `evicted` is released, after the lock
    while (accounting_->over_budget(evicted_bytes)) {
      std::unique_lock evicting(evict_mu_, std::try_to_lock);
      if (!evicting) {
        if (!accounting_->far_over_budget()) break;
        evicting.lock();
      }
      if (!evict_pass(evicted, evicted_bytes)) break;  // everything left is pinned: nothing to free
    }
    if (!evicted.empty()) release_dropped(std::move(evicted));
  }

  // Evicts unpinned entries not used since the clock hand last passed them (CLOCK, the
  // approximation of least recently used that lets hits take no lock), round-robin over shards
  // until under budget. Returns false if a full round freed nothing.
  bool evict_pass(Dropped& evicted, std::uint64_t& evicted_bytes) {
    bool freed_any = false;
    std::size_t idle_shards = 0;
    while (accounting_->over_budget(evicted_bytes) && idle_shards < shards_.size()) {
      Shard& shard = shards_[evict_hand_++ % shards_.size()];
      bool freed = false, swept = false;
      {
        std::lock_guard lock(shard.mu);
        // Look at a few entries at the hand: used ones lose their mark and pinned ones stay, both
        // moving to the front (second chance); the first of neither goes.
        for (std::size_t looked = 0; looked < 8 && !shard.lru.empty() && !freed; ++looked) {
          const Key* k = shard.lru.back();
          auto it = shard.map.find(*k);
          const bool used = it->second.node->referenced.exchange(false, std::memory_order_relaxed);
          if (used || it->second.value.use_count() > 1) {
            swept = swept || used;
            shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
            continue;
          }
          ++shard.evictions;
          evicted_bytes += it->second.bytes;
          erase(shard, it, evicted);
          freed = true;
        }
      }
      idle_shards = freed || swept ? 0 : idle_shards + 1;  // a cleared mark is progress too
      freed_any = freed_any || freed;
    }
    return freed_any;
  }

  TwoLevelCacheOptions options_;
  detail::RetiredList retired_;  // index nodes and tables unlinked from every shard
  std::mutex hazarded_mu_;       // taken after shard locks, never with one held
  Dropped hazarded_;             // removed values a borrowing thread still uses
  std::vector<Shard> shards_;
  detail::SlotLease lease_;
  std::shared_ptr<detail::CacheAccounting> accounting_;
  Hash hasher_;
  alignas(64) std::atomic<std::uint64_t> generation_{1};
  alignas(64) std::mutex evict_mu_;
  std::size_t evict_hand_ = 0;  // guarded by evict_mu_
  detail::TagEpochs tag_epochs_;
};

}  // namespace kiln::cache
