#include "kiln/jit/counted_loops.h"

#include <algorithm>

namespace kiln::jit {
namespace {

// Whether control reaches the body (prep, loop] only through the loop: no instruction outside
// [prep, loop] falls or branches into it.
bool entered_only_by_the_loop(std::span<const std::uint32_t> page, const PageShape& shape, std::size_t prep,
                              std::size_t loop) {
  for (std::size_t k = 0; k < kPageWords; ++k) {
    if (!shape.starts[k] || (k >= prep && k <= loop) || shape.straddles[k] || instruction_words(page, k) == 0) continue;
    const Successors s = successors(page, k);
    for (int target : {s.fall, s.has_target ? s.target : -1})
      if (target > int(prep) && target <= int(loop)) return false;
  }
  return true;
}

// The loop whose FORPREP is at `prep`, if its body qualifies.
bool analyse(std::span<const std::uint32_t> page, const PageShape& shape, std::size_t prep, CountedLoop& out) {
  const std::uint32_t w = page[prep];
  const unsigned base = a_of(w);
  const long loop = long(prep) + 1 + d_of(w);
  if (base + 3 >= 256 || loop <= long(prep) + 1 || loop >= long(kPageWords)) return false;
  const std::size_t q = std::size_t(loop);
  if (!shape.starts[q] || op_of(page[q]) != Op::kForLoop || a_of(page[q]) != base ||
      long(q) + 1 + d_of(page[q]) != long(prep) + 1)
    return false;
  // Every word of the body belongs to a decodable instruction of the page: nothing runs there
  // that this analysis has not seen.
  RegisterSet written;
  for (std::size_t k = prep + 1; k < q; ++k) {
    if (!shape.used[k]) return false;
    if (!shape.starts[k]) continue;
    if (shape.straddles[k] || instruction_words(page, k) == 0) return false;
    written |= written_registers(page, k);
  }
  for (unsigned r = base; r <= base + 3; ++r)
    if (written.test(r)) return false;
  if (!entered_only_by_the_loop(page, shape, prep, q)) return false;
  out = CountedLoop{};
  out.prep = std::uint16_t(prep);
  out.loop = std::uint16_t(q);
  out.base = std::uint8_t(base);
  out.index.set(base + 3);
  // The body's first instruction copying the variable into a local: that local holds it too, when
  // nothing else in the body writes it (every iteration starts there).
  const std::uint32_t first = page[prep + 1];
  if (shape.starts[prep + 1] && op_of(first) == Op::kMove && b_of(first) == base + 3) {
    RegisterSet others;
    for (std::size_t k = prep + 2; k < q; ++k)
      if (shape.starts[k]) others |= written_registers(page, k);
    if (!others.test(a_of(first))) out.index.set(a_of(first));
  }
  for (std::size_t k = prep + 1; k < q; ++k) {
    if (!shape.starts[k]) continue;
    const std::uint32_t i = page[k];
    unsigned array = 256, index = 256;
    if (op_of(i) == Op::kGetI) array = b_of(i), index = c_of(i);
    if (op_of(i) == Op::kSetI) array = a_of(i), index = b_of(i);
    if (array >= 256 || !out.index.test(index) || written.test(array)) continue;
    out.accesses.push_back({std::uint16_t(k), std::uint8_t(array)});
    out.arrays.push_back(std::uint8_t(array));
  }
  std::sort(out.arrays.begin(), out.arrays.end());
  out.arrays.erase(std::unique(out.arrays.begin(), out.arrays.end()), out.arrays.end());
  return !out.accesses.empty();
}

}  // namespace

std::vector<CountedLoop> counted_loops(std::span<const std::uint32_t> page, const PageShape& shape) {
  std::vector<CountedLoop> loops;
  if (page.size() < kPageWords) return loops;
  for (std::size_t k = 0; k < kPageWords; ++k) {
    if (!shape.starts[k] || shape.straddles[k] || op_of(page[k]) != Op::kForPrep) continue;
    CountedLoop loop;
    if (analyse(page, shape, k, loop)) loops.push_back(std::move(loop));
  }
  return loops;
}

}  // namespace kiln::jit
