#pragma once
// Per-thread storage for the first level of every TwoLevelCache. Each live cache owns one slot
// index; each thread has a vector of slots. A slot remembers the unique id of the cache that filled
// it, so a slot index reused by a later cache is never mistaken for the old one.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::cache::detail {

struct ThreadSlot {
  virtual ~ThreadSlot() = default;
  std::uint64_t owner_uid = 0;
};

struct SlotLease {
  std::size_t index;
  std::uint64_t uid;
};

SlotLease acquire_slot_index();
void release_slot_index(std::size_t index);

// The calling thread's slots, indexed by SlotLease::index. Destroyed when the thread exits.
inline thread_local std::vector<std::unique_ptr<ThreadSlot>> t_slots;

}  // namespace kiln::cache::detail
