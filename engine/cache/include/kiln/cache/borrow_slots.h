#pragma once
// BorrowSlots: several values one thread keeps borrowed from a TwoLevelCache at once, each until
// its slot is used again: a texture reader's last tiles, one per footprint position.
//
// A slot keeps its value the way borrow() does, without writing memory another thread reads on a
// level-2 hit: the slot names the cache entry as a hazard, and the cache does not release a value
// a hazard names. A value the slot's own request loaded is held by a reference instead.
//
// Thread-safety: owned by one thread (the one that borrows into it); the cache reads the hazards
// from any thread. Made by TwoLevelCache::borrow_slots(); may outlive neither its cache's values'
// users' expectations nor the cache: destroy it before the cache.

#include <cstddef>
#include <memory>
#include <vector>

#include "kiln/cache/detail/cache_accounting.h"

namespace kiln::cache {

class BorrowSlots {
 public:
  BorrowSlots() = default;
  BorrowSlots(std::shared_ptr<detail::CacheAccounting> accounting, std::size_t n) : accounting_(std::move(accounting)) {
    // One registration per slot: each is a cache line of its own the cache scans for hazards.
    for (std::size_t i = 0; i < n; ++i) slots_.push_back(accounting_->register_thread());
    held_.resize(n);
  }
  ~BorrowSlots() { reset(); }
  BorrowSlots(BorrowSlots&& other) noexcept { *this = std::move(other); }
  BorrowSlots& operator=(BorrowSlots&& other) noexcept {
    if (this != &other) {
      reset();
      accounting_ = std::move(other.accounting_);
      slots_ = std::move(other.slots_);
      held_ = std::move(other.held_);
      other.slots_.clear();
      other.held_.clear();
    }
    return *this;
  }
  BorrowSlots(const BorrowSlots&) = delete;
  BorrowSlots& operator=(const BorrowSlots&) = delete;

  std::size_t size() const { return slots_.size(); }
  // Lets go of what slot `i` keeps: its pointer must not be used any more.
  void release(std::size_t i) {
    slots_[i]->hazard.store(nullptr, std::memory_order_release);
    held_[i].reset();
  }

 private:
  template <class, class, class, class>
  friend class TwoLevelCache;

  void reset() {
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      release(i);
      accounting_->retire_thread(slots_[i]);
    }
    slots_.clear();
    held_.clear();
  }

  std::shared_ptr<detail::CacheAccounting> accounting_;
  std::vector<detail::ThreadCounters*> slots_;     // hazard and level-2 hit count per slot
  std::vector<std::shared_ptr<const void>> held_;  // what a slot's own load keeps
};

}  // namespace kiln::cache
