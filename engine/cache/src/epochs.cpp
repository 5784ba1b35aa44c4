#include "kiln/cache/detail/epochs.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace kiln::cache::detail {
namespace {

// One per thread that ever read, reused after the thread exits. Own cache line: a reader writes
// only its record, and only the epoch advancer reads it.
struct alignas(64) ReaderRecord {
  std::atomic<std::uint64_t> announced{0};  // 0: not reading
  std::atomic<bool> in_use{false};
};

struct Domain {
  alignas(64) std::atomic<std::uint64_t> epoch{1};
  alignas(64) std::mutex mu;  // guards `records` (never shrinks: records outlive their threads)
  std::vector<std::unique_ptr<ReaderRecord>> records;

  ReaderRecord* acquire() {
    std::lock_guard lock(mu);
    for (auto& r : records) {
      bool expected = false;
      if (r->in_use.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return r.get();
    }
    records.push_back(std::make_unique<ReaderRecord>());
    records.back()->in_use.store(true, std::memory_order_relaxed);
    return records.back().get();
  }

  // Moves the epoch on by one if no reader is inside an older one; returns the epoch now.
  std::uint64_t try_advance() {
    std::lock_guard lock(mu);
    std::uint64_t now = epoch.load(std::memory_order_seq_cst);
    for (const auto& r : records) {
      const std::uint64_t a = r->announced.load(std::memory_order_seq_cst);
      if (a != 0 && a != now) return now;
    }
    epoch.compare_exchange_strong(now, now + 1, std::memory_order_seq_cst);
    return epoch.load(std::memory_order_seq_cst);
  }
};

Domain& domain() {
  static Domain* d = new Domain;  // never destroyed: threads may read after static destructors ran
  return *d;
}

struct ThreadReader {
  ReaderRecord* record = nullptr;
  int depth = 0;
  ~ThreadReader() {
    if (!record) return;
    record->announced.store(0, std::memory_order_release);
    record->in_use.store(false, std::memory_order_release);
  }
};
thread_local ThreadReader t_reader;

}  // namespace

EpochReader::EpochReader() {
  ThreadReader& t = t_reader;
  if (t.depth++ > 0) return;
  if (!t.record) t.record = domain().acquire();
  // An exchange, not a store: the announcement must be visible before this thread reads any
  // pointer (a store could be ordered after the loads that follow it).
  t.record->announced.exchange(domain().epoch.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
}

EpochReader::~EpochReader() {
  ThreadReader& t = t_reader;
  if (--t.depth == 0) t.record->announced.store(0, std::memory_order_release);
}

RetiredList::~RetiredList() {
  for (const Item& item : items_) item.destroy(item.object);
}

void RetiredList::push(void* object, void (*destroy)(void*)) {
  std::lock_guard lock(mu_);
  items_.push_back({domain().epoch.load(std::memory_order_seq_cst), object, destroy});
  count_.store(items_.size(), std::memory_order_relaxed);
}

void RetiredList::collect() {
  std::vector<Item> freeable;
  {
    std::lock_guard lock(mu_);
    if (items_.empty()) return;
    // Two advances when no reader is in the way: what was unlinked before the first is then free.
    domain().try_advance();
    const std::uint64_t now = domain().try_advance();
    std::size_t kept = 0;
    for (const Item& item : items_) {
      if (item.epoch + 2 <= now)
        freeable.push_back(item);
      else
        items_[kept++] = item;
    }
    items_.resize(kept);
    count_.store(kept, std::memory_order_relaxed);
  }
  for (const Item& item : freeable) item.destroy(item.object);
}

}  // namespace kiln::cache::detail
