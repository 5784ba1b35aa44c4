#include "kiln/jit/inlining.h"

#include <map>
#include <set>
#include <string>

#include "kiln/jit/page_analysis.h"

namespace kiln::jit {
namespace {

// Instructions an inlined callee may hold: each either computes into a register, reads, branches
// forward, or returns. Anything else needs the callee's own frame or changes state.
bool inline_op(Op op) {
  switch (op) {
    case Op::kLoadN:
    case Op::kLoadB:
    case Op::kMove:
    case Op::kGetMod:
    case Op::kNeg:
    case Op::kNot:
    case Op::kJmp:
    case Op::kJmpIf:
    case Op::kJmpIfNot:
    case Op::kGetI:
    case Op::kLen:
    case Op::kMath:
    case Op::kRet:
    case Op::kRet0:
    case Op::kJNotLt:
    case Op::kJNotLe:
    case Op::kJNotEq:
    case Op::kJEq: return true;
    default: return is_binary(op) || is_constant_arithmetic(op) || is_constant_branch(op);
  }
}

}  // namespace

bool inlinable(std::span<const std::uint32_t> code) {
  if (code.empty() || code.size() > kMaxInlineWords) return false;
  std::vector<bool> starts(code.size());
  std::vector<std::size_t> targets;
  for (std::size_t k = 0; k < code.size();) {
    const std::size_t n = instruction_words(code, k);
    if (n == 0 || k + n > code.size()) return false;
    const Op op = op_of(code[k]);
    if (!inline_op(op)) return false;
    if (op == Op::kMath && b_of(code[k]) > static_cast<unsigned>(MathFn::kMax)) return false;
    starts[k] = true;
    const Successors s = successors(code, k);
    if (s.has_target) {  // forward, to an instruction of the callee
      if (s.target <= int(k) || s.target >= int(code.size())) return false;
      targets.push_back(std::size_t(s.target));
    }
    if (s.fall == int(code.size())) return false;  // would run off its end
    k += n;
  }
  for (std::size_t t : targets)
    if (!starts[t]) return false;
  return true;
}

ValueCallees value_callees(const Program& program) {
  std::set<std::uint32_t> taken;
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const std::span<const std::uint32_t> code(program.code(f), program.functions[f].words);
    for (std::size_t k = 0; k < code.size();) {
      const std::size_t n = instruction_words(code, k);
      if (n == 0) break;  // a program that loaded has none; nothing to inline from a damaged one
      if (op_of(code[k]) == Op::kLoadF && ud_of(code[k]) < program.functions.size()) taken.insert(ud_of(code[k]));
      k += n;
    }
  }
  ValueCallees out;
  for (std::uint32_t f : taken) {
    const FunctionCode& fn = program.functions[f];
    if (fn.params < 0 || !inlinable(std::span<const std::uint32_t>(program.code(f), fn.words))) continue;
    if (out.by_params.size() <= std::size_t(fn.params)) out.by_params.resize(std::size_t(fn.params) + 1);
    out.by_params[std::size_t(fn.params)].push_back(f);
  }
  return out;
}

std::vector<std::uint32_t> page_key_words(const Program& program, std::size_t page, const ValueCallees& values) {
  const auto words = program.page(page);
  std::vector<std::uint32_t> key(words.begin(), words.end());
  const PageShape shape = analyze_page(words, program.entries[page]);
  std::map<std::uint32_t, bool> callees;  // function -> inlined into calls through values
  for (std::size_t k = 0; k < kPageWords; ++k) {
    if (!shape.starts[k] || shape.straddles[k] || instruction_words(words, k) == 0) continue;
    const Op op = op_of(words[k]);
    if (op == Op::kCall && ud_of(words[k]) < program.functions.size()) {
      const std::uint32_t f = ud_of(words[k]);
      if (inlinable(std::span<const std::uint32_t>(program.code(f), program.functions[f].words))) callees[f];
    }
    if (op == Op::kCallR && c_of(words[k]) < values.by_params.size()) {
      const auto& reachable = values.by_params[c_of(words[k])];
      if (reachable.size() <= kMaxValueCallees)
        for (std::uint32_t f : reachable) callees[f] = true;
    }
  }
  for (const auto& [f, for_values] : callees) {
    const FunctionCode& fn = program.functions[f];
    const std::span<const std::uint32_t> code(program.code(f), fn.words);
    key.push_back(f);
    key.push_back(std::uint32_t(fn.params) | (for_values ? kValueCalleeBit : 0));
    key.push_back(std::uint32_t(code.size()));
    key.insert(key.end(), code.begin(), code.end());
  }
  return key;
}

Result<std::vector<InlineCallee>> inline_callees(std::span<const std::uint32_t> key_words) {
  if (key_words.size() < kPageWords)
    return make_error("a page's key has " + std::to_string(key_words.size()) + " words, fewer than a page");
  std::vector<InlineCallee> out;
  std::size_t at = kPageWords;
  while (at < key_words.size()) {
    const std::string where = "inlined callee record at word " + std::to_string(at);
    if (key_words.size() - at < 3) return make_error(where + ": truncated");
    InlineCallee callee;
    callee.function = key_words[at];
    callee.params = int(key_words[at + 1] & ~kValueCalleeBit);
    callee.for_values = (key_words[at + 1] & kValueCalleeBit) != 0;
    const std::size_t n = key_words[at + 2];
    if (!out.empty() && callee.function <= out.back().function)
      return make_error(where + ": function " + std::to_string(callee.function) + " out of order");
    if (callee.params > 255) return make_error(where + ": " + std::to_string(callee.params) + " parameters");
    if (n > key_words.size() - at - 3) return make_error(where + ": code runs past the key");
    callee.code = key_words.subspan(at + 3, n);
    if (!inlinable(callee.code)) return make_error(where + ": code that is not inlined");
    out.push_back(callee);
    at += 3 + n;
  }
  return out;
}

}  // namespace kiln::jit
