#include "kiln/jit/register_liveness.h"

namespace kiln::jit {
namespace {

struct UseDef {
  RegisterSet use, def;
  bool uses_all = false;  // unknown reads (calls read their arguments from a up; undecodable words)
  unsigned all_from = 0;
};

UseDef use_def(std::span<const std::uint32_t> page, std::size_t k) {
  const std::uint32_t w = page[k];
  const unsigned a = a_of(w), b = b_of(w), c = c_of(w);
  UseDef u;
  auto use = [&](unsigned r) {
    if (r < 256) u.use.set(r);
  };
  if (is_binary(op_of(w))) {
    use(b), use(c), u.def.set(a);
    return u;
  }
  if (is_constant_arithmetic(op_of(w))) {
    use(b), u.def.set(a);
    return u;
  }
  if (is_constant_branch(op_of(w))) {
    use(a);
    return u;
  }
  switch (op_of(w)) {
    case Op::kLoadN:
    case Op::kLoadB:
    case Op::kGetMod:
    case Op::kNewArr:
    case Op::kLoadF: u.def.set(a); break;
    case Op::kMove:
    case Op::kNeg:
    case Op::kNot:
    case Op::kLen: use(b), u.def.set(a); break;
    case Op::kSetMod:
    case Op::kJmpIf:
    case Op::kJmpIfNot:
    case Op::kRet:
    case Op::kPutN:
    case Op::kPutB: use(a); break;
    case Op::kGetI: use(b), use(c), u.def.set(a); break;
    case Op::kAppend: use(a), use(b); break;
    case Op::kSetI: use(a), use(b), use(c); break;
    case Op::kForPrep:
    case Op::kForLoop: use(a), use(a + 1), use(a + 2); break;  // the loop variable a + 3 is kept too (not a def)
    case Op::kMath:
    case Op::kHost:
      for (unsigned i = 0; i < c; ++i) use(a + i);
      u.def.set(a);
      break;
    case Op::kJNotLt:
    case Op::kJNotLe:
    case Op::kJNotEq:
    case Op::kJEq: use(a), use(b); break;
    case Op::kCallR: use(b), u.uses_all = true, u.all_from = a; break;
    case Op::kCall:
    case Op::kTailCall: u.uses_all = true, u.all_from = a; break;
    case Op::kJmp:
    case Op::kRet0:
    case Op::kPutS:
    case Op::kPutTab:
    case Op::kPrintLn:
    case Op::kDefine: break;
    default: u.uses_all = true, u.all_from = 0; break;
  }
  return u;
}

RegisterSet from(unsigned first) {
  RegisterSet s;
  for (unsigned r = first; r < 256; ++r) s.set(r);
  return s;
}

}  // namespace

RegisterSet written_registers(std::span<const std::uint32_t> page, std::size_t k) {
  const std::uint32_t w = page[k];
  const unsigned a = a_of(w);
  RegisterSet written;
  switch (op_of(w)) {
    case Op::kForPrep: written.set(a); return written;
    case Op::kForLoop:
      written.set(a);
      if (a + 3 < 256) written.set(a + 3);
      return written;
    case Op::kCall:
    case Op::kCallR:
    case Op::kTailCall: return from(a);
    default: break;
  }
  const UseDef u = use_def(page, k);
  if (u.uses_all && u.all_from == 0 && u.def.none()) return from(0);  // not an instruction known here
  return u.def;
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
