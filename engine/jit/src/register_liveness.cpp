#include "kiln/jit/register_liveness.h"

namespace kiln::jit {
namespace {

struct UseDef {
  RegisterSet use, def;
  bool uses_all = false;  // unknown reads (calls read their arguments from a up; undecodable words)
  unsigned all_from = 0;
};

RegisterSet from(unsigned first) {
  RegisterSet s;
  for (unsigned r = first; r < 256; ++r) s.set(r);
  return s;
}

UseDef use_def(std::span<const std::uint32_t> page, std::size_t k) {
  const std::uint32_t w = page[k];
  UseDef u;
  if (!is_op(w)) {
    u.uses_all = true, u.all_from = 0;
    return u;
  }
  const unsigned a = a_of(w), b = b_of(w), c = c_of(w), effect = op_info(op_of(w)).effect;
  auto use = [&](unsigned r) {
    if (r < 256) u.use.set(r);
  };
  if (effect & kUseA) use(a);
  if (effect & kUseB) use(b);
  if (effect & kUseC) use(c);
  if (effect & kUseArgs)
    for (unsigned i = 0; i < c; ++i) use(a + i);
  if (effect & kUseLoop) use(a), use(a + 1), use(a + 2);
  if (effect & kCallFromA) u.uses_all = true, u.all_from = a;
  // CLOSURE reads the registers its trailing words name, and the running closure: any of them.
  if (op_of(w) == Op::kClosure) u.uses_all = true, u.all_from = 0;
  // A loop's variable a+3 is not a def here: it keeps its value where the loop ends, so it stays live.
  if (effect & kDefA) u.def.set(a);
  return u;
}

}  // namespace

RegisterSet written_registers(std::span<const std::uint32_t> page, std::size_t k) {
  const std::uint32_t w = page[k];
  if (!is_op(w)) return from(0);  // not an instruction known here
  const unsigned a = a_of(w), effect = op_info(op_of(w)).effect;
  if (effect & kCallFromA) return from(a);
  RegisterSet written;
  if (effect & kDefA) written.set(a);
  if ((effect & kDefLoopVariable) && a + 3 < 256) written.set(a + 3);
  return written;
}

std::vector<RegisterSet> live_registers(std::span<const std::uint32_t> page, const PageShape& shape) {
  const RegisterSet all = from(0);
  std::vector<RegisterSet> live(page.size(), all);
  std::vector<UseDef> ud(page.size());
  std::vector<Successors> next(page.size());
  std::vector<std::size_t> starts;
  for (std::size_t k = 0; k < page.size() && k < kPageWords; ++k) {
    if (!shape.starts[k]) continue;
    if (shape.straddles[k] || instruction_words(page, k) == 0) continue;  // stays "all"
    starts.push_back(k);
    ud[k] = use_def(page, k);
    next[k] = successors(page, k);
    live[k].reset();
  }
  // Whatever leaves the page, or reaches a word that is not an instruction start, keeps everything.
  auto live_at = [&](int target) -> const RegisterSet& {
    if (target < 0 || target >= int(kPageWords) || !shape.starts[std::size_t(target)]) return all;
    return live[std::size_t(target)];
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
      const std::size_t k = *it;
      RegisterSet out;
      if (next[k].fall >= 0) out |= live_at(next[k].fall);
      if (next[k].has_target) out |= live_at(next[k].target);
      RegisterSet in = (out & ~ud[k].def) | ud[k].use;
      if (ud[k].uses_all) in |= from(ud[k].all_from);
      if (in != live[k]) live[k] = in, changed = true;
    }
  }
  return live;
}

}  // namespace kiln::jit
