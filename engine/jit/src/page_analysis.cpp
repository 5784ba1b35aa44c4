#include "kiln/jit/page_analysis.h"

#include <algorithm>
#include <bitset>
#include <utility>

namespace kiln::jit {

Successors successors(std::span<const std::uint32_t> page, std::size_t at) {
  const OpFlow flow = is_op(page[at]) ? op_info(op_of(page[at])).flow : OpFlow::kNext;
  Successors s;
  if (flow == OpFlow::kNext || flow == OpFlow::kMaybe) s.fall = int(at + instruction_words(page, at));
  if (flow == OpFlow::kAlways || flow == OpFlow::kMaybe)
    if (const auto target = jump_target(page, at)) s.target = int(*target), s.has_target = true;
  return s;
}

PageShape analyze_page(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries) {
  PageShape shape;
  std::vector<std::size_t> work(entries.begin(), entries.end());
  std::vector<std::uint16_t> heads;
  while (!work.empty()) {
    const std::size_t at = work.back();
    work.pop_back();
    if (at >= page.size() || shape.starts[at]) continue;
    shape.starts[at] = true;
    const std::size_t n = instruction_words(page, at);
    if (n == 0) {  // not an instruction: compiled code hands it to the interpreter
      shape.used[at] = true;
      continue;
    }
    if (at + n > page.size()) {
      shape.straddles[at] = true;
      for (std::size_t k = at; k < page.size(); ++k) shape.used[k] = true;
      continue;
    }
    for (std::size_t k = at; k < at + n; ++k) shape.used[k] = true;
    const Successors s = successors(page, at);
    if (s.fall >= 0) work.push_back(std::size_t(s.fall));
    if (s.has_target && s.target >= 0 && s.target < int(page.size())) {
      work.push_back(std::size_t(s.target));
      if (s.target <= int(at)) heads.push_back(std::uint16_t(s.target));
    }
  }
  std::sort(heads.begin(), heads.end());
  heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
  shape.loop_heads = std::move(heads);
  return shape;
}

std::vector<std::uint16_t> jit_entries(std::span<const std::uint32_t> page,
                                       std::span<const std::uint16_t> program_entries) {
  const PageShape shape = analyze_page(page, program_entries);
  // A return site inside a loop of the page is left out: an entry into the middle of a loop makes
  // the loop irreducible to the compiler, which then keeps its invariants (array bounds, the budget)
  // inside it. The interpreter reaches one only when a call was made outside compiled code, and then
  // runs on to the loop's head, an entry, within the iteration.
  std::vector<std::pair<int, int>> loops;  // (head, backward branch)
  std::bitset<kPageWords> after_call;
  for (std::size_t at = 0; at < kPageWords; ++at) {
    if (!shape.starts[at] || shape.straddles[at] || instruction_words(page, at) == 0) continue;
    const Op op = op_of(page[at]);
    const std::size_t after = at + instruction_words(page, at);
    if ((op == Op::kCall || op == Op::kCallR || op == Op::kTailCall) && after < kPageWords) after_call[after] = true;
    const Successors s = successors(page, at);
    if (s.has_target && s.target >= 0 && s.target <= int(at)) loops.emplace_back(s.target, int(at));
  }
  std::vector<std::uint16_t> out;
  for (std::uint16_t e : program_entries) {
    const bool in_loop = e < kPageWords && after_call[e] &&
                         std::any_of(loops.begin(), loops.end(), [&](auto l) { return l.first < e && e <= l.second; });
    if (!in_loop) out.push_back(e);
  }
  out.insert(out.end(), shape.loop_heads.begin(), shape.loop_heads.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace kiln::jit
