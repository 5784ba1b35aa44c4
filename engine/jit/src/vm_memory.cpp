// The interpreter's side of the heap: when it collects, what its roots are, and the program's
// string constants.

#include <algorithm>
#include <cstdio>
#include <string>

#include "kiln/core/config.h"

#include "vm_impl.h"

namespace kiln::jit {

Status Vm::Impl::collect(const Frame& f, std::size_t pc) {
  // Every frame's registers lie below the top frame's end; the module variables; the constants
  // (pinned). Registers above the top frame are dead.
  const std::size_t top = std::min(stack.size(), f.base + starts[f.function].registers);
  const std::span<const Value> roots[] = {{stack.data(), top}, {module.data(), module.size()}};
  const std::uint64_t live = heap.collect(roots);
  elements = 0;
  if (live > options.memory_max) {
    char amount[64];
    if (live < (std::uint64_t{1} << 20))
      std::snprintf(amount, sizeof amount, "%.1f KiB", static_cast<double>(live) / 1024);
    else
      std::snprintf(amount, sizeof amount, "%.1f MiB", static_cast<double>(live) / (1 << 20));
    return error_at(f, pc,
                    std::string("script memory budget exhausted (") + amount +
                        " live, over scripts.memory_max = " + format_size(options.memory_max) + ")");
  }
  // The next collection after as many words as survived, at least kFirstCollectionWords, and
  // before the budget would be passed.
  const std::uint64_t live_words = live / sizeof(Value), max_words = options.memory_max / sizeof(Value);
  std::uint64_t next = std::max(live_words, kFirstCollectionWords);
  if (live_words + next > max_words) next = std::max<std::uint64_t>(max_words - live_words, 1);
  context.max_elements = next;
  return {};
}

String* Vm::Impl::constant_string(const std::uint32_t* at) {
  if (const auto it = constants.find(at); it != constants.end()) return it->second;
  const std::uint32_t length = at[1];
  String* s = heap.new_string(length);
  for (std::uint32_t k = 0; k < length; ++k) s->bytes()[k] = static_cast<char>((at[2 + k / 4] >> (8 * (k % 4))) & 0xff);
  Heap::seal(s);
  heap.pin(s);
  count_string(s);
  constants.emplace(at, s);
  return s;
}

}  // namespace kiln::jit
