#pragma once
// ReadIndex: the published entries of one TwoLevelCache shard, for hits that take no lock.
//
// An open-addressing table (linear probing) of pointers to immutable nodes. Readers probe it
// inside an EpochReader section and write nothing but a node's `referenced` bit, and that only
// when it is clear; a writer inserts and erases under the shard's lock, and retires unlinked nodes
// and outgrown tables to the owner's RetiredList, so a reader never touches freed memory. A node
// holds a weak reference: the shard's entry owns the value, and a hit pins it only if it is still
// alive, so an evicted value is released at once, whatever readers do. `alive` is cleared before
// the entry lets go of the value: a reader that publishes the node as its hazard and then still
// sees it alive may use the value past its section (the owner defers releasing hazarded values).
//
// Threads: find_node() from any thread inside an EpochReader section; insert(), erase() and the
// destructor under the owner's lock.

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "kiln/cache/detail/epochs.h"

namespace kiln::cache::detail {

template <class Key, class Value, class Eq>
class ReadIndex {
 public:
  struct Node {
    std::size_t hash;
    Key key;
    std::weak_ptr<const Value> value;
    const Value* raw;
    std::atomic<bool> alive{true};
    // Set by hits, cleared by eviction's sweep: a second chance for entries used since (CLOCK).
    mutable std::atomic<bool> referenced{false};
    Node(std::size_t h, const Key& k, const std::shared_ptr<const Value>& v)
        : hash(h), key(k), value(v), raw(v.get()) {}
  };

  ReadIndex() = default;
  ReadIndex(const ReadIndex&) = delete;
  ReadIndex& operator=(const ReadIndex&) = delete;
  ~ReadIndex() {
    Table* t = table_.load(std::memory_order_relaxed);
    if (!t) return;
    for (std::size_t i = 0; i <= t->mask; ++i) {
      Node* n = t->slots[i].load(std::memory_order_relaxed);
      if (n && n != tombstone()) delete n;
    }
    delete t;
  }

  // The node of `key`, or null. Valid until the caller's EpochReader section ends. `touch` marks
  // it used for eviction.
  const Node* find_node(std::size_t hash, const Key& key, bool touch) const {
    const Table* t = table_.load(std::memory_order_seq_cst);
    if (!t) return nullptr;
    for (std::size_t i = t->home(hash), probes = 0; probes <= t->mask; i = (i + 1) & t->mask, ++probes) {
      const Node* n = t->slots[i].load(std::memory_order_seq_cst);
      if (!n) return nullptr;
      if (n == tombstone() || n->hash != hash || !Eq{}(n->key, key)) continue;
      if (touch && !n->referenced.load(std::memory_order_relaxed)) n->referenced.store(true, std::memory_order_relaxed);
      return n;
    }
    return nullptr;
  }

  // The value of `key` pinned, or null if it is not published or no longer alive.
  std::shared_ptr<const Value> find(std::size_t hash, const Key& key, bool touch) const {
    EpochReader reading;
    const Node* n = find_node(hash, key, touch);
    return n ? n->value.lock() : nullptr;
  }

  // Publishes `value` under `key`, which must not be in the index. Caller holds the owner's lock.
  Node* insert(std::size_t hash, const Key& key, const std::shared_ptr<const Value>& value, RetiredList& retired) {
    Table* t = table_.load(std::memory_order_relaxed);
    if (!t || (used_ + 1) * 4 > (t->mask + 1) * 3) t = rebuild(live_ + 1, retired);
    Node* node = new Node(hash, key, value);
    for (std::size_t i = t->home(hash);; i = (i + 1) & t->mask) {
      Node* n = t->slots[i].load(std::memory_order_relaxed);
      if (n && n != tombstone()) continue;
      if (!n) ++used_;
      t->slots[i].store(node, std::memory_order_seq_cst);
      break;
    }
    ++live_;
    return node;
  }

  // Marks `node` dead, unlinks it and retires it. Caller holds the owner's lock.
  void erase(Node* node, RetiredList& retired) {
    node->alive.store(false, std::memory_order_seq_cst);
    Table* t = table_.load(std::memory_order_relaxed);
    for (std::size_t i = t->home(node->hash);; i = (i + 1) & t->mask) {
      if (t->slots[i].load(std::memory_order_relaxed) != node) continue;
      t->slots[i].store(tombstone(), std::memory_order_seq_cst);
      break;
    }
    --live_;
    retired.retire(node);
  }

 private:
  struct Table {
    std::size_t mask;
    int shift;  // 64 - log2(capacity)
    std::unique_ptr<std::atomic<Node*>[]> slots;
    explicit Table(std::size_t capacity)
        : mask(capacity - 1), shift(64 - std::countr_zero(capacity)), slots(new std::atomic<Node*>[capacity]) {
      for (std::size_t i = 0; i < capacity; ++i) slots[i].store(nullptr, std::memory_order_relaxed);
    }
    // Fibonacci hashing: the top bits of the mixed hash (std::hash of an integer is the integer,
    // whose low bits may all agree). The shard is chosen by bits 32 and up of the same product,
    // which a table below 2^28 slots does not use.
    std::size_t home(std::size_t hash) const {
      return std::size_t((std::uint64_t(hash) * 0x9E3779B97F4A7C15ull) >> shift);
    }
  };

  // Never dereferenced: marks a slot whose node was erased, so probes go on past it.
  static Node* tombstone() {
    alignas(Node) static unsigned char marker[sizeof(Node)];
    return reinterpret_cast<Node*>(marker);
  }

  // A new table for `live` entries at most half full, holding the live nodes of the old one.
  Table* rebuild(std::size_t live, RetiredList& retired) {
    Table* old = table_.load(std::memory_order_relaxed);
    auto* t = new Table(std::max<std::size_t>(16, std::bit_ceil(live * 2)));
    if (old) {
      for (std::size_t i = 0; i <= old->mask; ++i) {
        Node* n = old->slots[i].load(std::memory_order_relaxed);
        if (!n || n == tombstone()) continue;
        std::size_t j = t->home(n->hash);
        while (t->slots[j].load(std::memory_order_relaxed)) j = (j + 1) & t->mask;
        t->slots[j].store(n, std::memory_order_relaxed);
      }
    }
    table_.store(t, std::memory_order_seq_cst);  // publishes the slots written above
    if (old) retired.retire(old);
    used_ = live_;
    return t;
  }

  std::atomic<Table*> table_{nullptr};
  std::size_t live_ = 0;  // writer only, like everything below
  std::size_t used_ = 0;  // slots not null: live nodes and tombstones
};

}  // namespace kiln::cache::detail
