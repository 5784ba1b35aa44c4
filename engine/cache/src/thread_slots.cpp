#include "kiln/cache/detail/thread_slots.h"

#include <mutex>

namespace kiln::cache::detail {
namespace {

struct SlotRegistry {
  std::mutex mu;
  std::vector<std::size_t> free;
  std::size_t next = 0;
  std::uint64_t next_uid = 1;
};

SlotRegistry& registry() {
  static SlotRegistry* r = new SlotRegistry;  // never destroyed: threads may outlive static destructors
  return *r;
}

}  // namespace

SlotLease acquire_slot_index() {
  SlotRegistry& r = registry();
  std::lock_guard lock(r.mu);
  std::size_t index;
  if (!r.free.empty()) {
    index = r.free.back();
    r.free.pop_back();
  } else {
    index = r.next++;
  }
  return {index, r.next_uid++};
}

void release_slot_index(std::size_t index) {
  SlotRegistry& r = registry();
  std::lock_guard lock(r.mu);
  r.free.push_back(index);
}

}  // namespace kiln::cache::detail
