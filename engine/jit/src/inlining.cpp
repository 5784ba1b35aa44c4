#include "kiln/jit/inlining.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "kiln/jit/page_analysis.h"

namespace kiln::jit {
namespace {

// Instructions an inlined callee may hold: each either computes into a register, reads, branches
// forward, or returns. Anything else needs the callee's own frame or changes state.
bool inline_op(Op op) {
  switch (op) {  // every instruction listed: a new one is decided here (-Werror=switch)
    case Op::kLoadN:
    case Op::kLoadB:
    case Op::kMove:
    case Op::kGetMod:
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kMod:
    case Op::kPow:
    case Op::kNeg:
    case Op::kNot:
    case Op::kEq:
    case Op::kLt:
    case Op::kLe:
    case Op::kEqRef:
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
    case Op::kJEq:
    case Op::kAddK:
    case Op::kSubK:
    case Op::kMulK:
    case Op::kDivK:
    case Op::kJNotLtK:
    case Op::kJNotLeK:
    case Op::kJNotGtK:
    case Op::kJNotGeK:
    case Op::kJNotEqK:
    case Op::kJEqK:
    case Op::kGetF: return true;
    case Op::kSetMod:
    case Op::kForPrep:
    case Op::kForLoop:
    case Op::kNewArr:
    case Op::kAppend:
    case Op::kSetI:
    case Op::kCall:
    case Op::kHost:
    case Op::kPutN:
    case Op::kPutB:
    case Op::kPutS:
    case Op::kPutTab:
    case Op::kPrintLn:
    case Op::kDefine:
    case Op::kLoadF:
    case Op::kCallR:
    case Op::kTailCall:
    case Op::kNewRec:
    case Op::kSetF:
    case Op::kNewCell:
    case Op::kGetCell:
    case Op::kSetCell:
    case Op::kGetUp:
    case Op::kSetUp:
    case Op::kClosure:
    case Op::kLoadS:
    case Op::kStr:
    case Op::kLenS:
    case Op::kEqS:
    case Op::kLtS:
    case Op::kLeS:
    case Op::kPutStr:
    case Op::kCount: return false;
  }
  return false;
}

// Whether `code` follows the inlining rules. With `calls`, calls by index are allowed too, and
// their targets collected.
bool inline_shape(std::span<const std::uint32_t> code, std::set<std::uint32_t>* calls) {
  if (code.empty() || code.size() > kMaxInlineWords) return false;
  std::vector<bool> starts(code.size());
  std::vector<std::size_t> targets;
  for (std::size_t k = 0; k < code.size();) {
    const std::size_t n = instruction_words(code, k);
    if (n == 0 || k + n > code.size()) return false;
    const Op op = op_of(code[k]);
    if (op == Op::kCall && calls)
      calls->insert(ud_of(code[k]));
    else if (op == Op::kTailCall && calls)
      calls->insert(code[k + 1]);
    else if (!inline_op(op))
      return false;
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

std::span<const std::uint32_t> code_of(const Program& program, std::uint32_t f) {
  return {program.code(f), program.functions[f].words};
}

}  // namespace

bool inlinable(std::span<const std::uint32_t> code) { return inline_shape(code, nullptr); }

std::optional<std::vector<std::uint32_t>> inlinable_calling_leaves(const Program& program, std::uint32_t f) {
  std::set<std::uint32_t> calls;
  if (f >= program.functions.size() || !inline_shape(code_of(program, f), &calls) || calls.empty()) return std::nullopt;
  for (std::uint32_t g : calls)
    if (g >= program.functions.size() || !inlinable(code_of(program, g))) return std::nullopt;
  return std::vector<std::uint32_t>(calls.begin(), calls.end());
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
    if (fn.params < 0 || (!inlinable(code_of(program, f)) && !inlinable_calling_leaves(program, f))) continue;
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
  auto add = [&](std::uint32_t f, bool for_values) {
    if (inlinable(code_of(program, f))) {
      callees[f] |= for_values;
    } else if (auto leaves = inlinable_calling_leaves(program, f)) {
      callees[f] |= for_values;
      for (std::uint32_t g : *leaves) callees[g];
    }
  };
  for (std::size_t k = 0; k < kPageWords; ++k) {
    if (!shape.starts[k] || shape.straddles[k] || instruction_words(words, k) == 0) continue;
    const Op op = op_of(words[k]);
    if (op == Op::kCall && ud_of(words[k]) < program.functions.size()) add(ud_of(words[k]), false);
    if (op == Op::kTailCall && words[k + 1] < program.functions.size()) add(words[k + 1], false);
    if (op == Op::kCallR && c_of(words[k]) < values.by_params.size()) {
      const auto& reachable = values.by_params[c_of(words[k])];
      if (reachable.size() <= kMaxValueCallees)
        for (std::uint32_t f : reachable) add(f, true);
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
  std::vector<std::pair<std::uint32_t, std::size_t>> leaves_called;  // (callee, record that calls it)
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
    std::set<std::uint32_t> calls;
    if (!inlinable(callee.code) && !(inline_shape(callee.code, &calls) && !calls.empty()))
      return make_error(where + ": code that is not inlined");
    for (std::uint32_t g : calls) leaves_called.emplace_back(g, at);
    out.push_back(callee);
    at += 3 + n;
  }
  // A callee that calls is inlined only with each of its callees inlined inside it: leaves all.
  for (const auto& [called, record] : leaves_called) {
    const std::uint32_t g = called;  // a plain variable: clang 14 cannot capture a structured binding
    const auto it = std::find_if(out.begin(), out.end(), [&](const InlineCallee& c) { return c.function == g; });
    if (it == out.end() || !inlinable(it->code))
      return make_error("inlined callee record at word " + std::to_string(record) + ": calls function " +
                        std::to_string(g) + ", which is not an inlined leaf");
  }
  return out;
}

}  // namespace kiln::jit
