#pragma once
// Epoch-based reclamation (Fraser, "Practical lock-freedom", 2004; the scheme of crossbeam-epoch
// and of RCU's grace periods): readers that take no lock announce the global epoch while they
// read; an object unlinked by a writer is freed only once the epoch has advanced twice past its
// unlinking, which cannot happen while any reader that might have seen it is still reading.
//
// Threads: any thread may open an EpochReader (nestable, cheap: one exchange on the thread's own
// cache line on entry, one store on exit). Reading the readers' announcements to advance the epoch
// takes the domain's mutex; that happens on writers' paths, never on a reader's.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace kiln::cache::detail {

// A read-side critical section: objects reachable when it opens stay allocated until it closes.
class EpochReader {
 public:
  EpochReader();
  ~EpochReader();
  EpochReader(const EpochReader&) = delete;
  EpochReader& operator=(const EpochReader&) = delete;
};

// Objects unlinked from a structure readers traverse, each freed once no reader can still reach it.
//
// Threads: any thread may retire and collect; objects are destroyed in collect(), on the collecting
// thread, with no lock of this list held.
class RetiredList {
 public:
  RetiredList() = default;
  RetiredList(const RetiredList&) = delete;
  RetiredList& operator=(const RetiredList&) = delete;
  // Frees everything still listed: a structure being destroyed has no readers left.
  ~RetiredList();

  template <class T>
  void retire(T* object) {
    push(object, [](void* p) { delete static_cast<T*>(p); });
  }
  bool empty() const { return size() == 0; }
  std::size_t size() const { return count_.load(std::memory_order_relaxed); }
  // Advances the epoch if every reader allows it and frees what no reader can still reach.
  void collect();

 private:
  struct Item {
    std::uint64_t epoch;  // the global epoch when it was unlinked
    void* object;
    void (*destroy)(void*);
  };
  void push(void* object, void (*destroy)(void*));
  std::mutex mu_;
  std::vector<Item> items_;  // guarded by mu_
  std::atomic<std::size_t> count_{0};
};

}  // namespace kiln::cache::detail
