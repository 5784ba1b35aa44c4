#include "kiln/jit/bytecode.h"

#include <set>

namespace kiln::jit {

const char* op_name(Op op) { return std::size_t(op) < std::size(kOpInfo) ? kOpInfo[std::size_t(op)].mnemonic : "?"; }

bool writes_only_numbers(Op op) {
  switch (op) {  // every instruction listed: a new one is decided here (-Werror=switch)
    case Op::kLoadN:
    case Op::kLoadB:
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
    case Op::kLen:
    case Op::kMath:
    case Op::kHost:
    case Op::kAddK:
    case Op::kSubK:
    case Op::kMulK:
    case Op::kDivK:
    case Op::kForPrep:
    case Op::kForLoop:
    case Op::kLenS:
    case Op::kEqS:
    case Op::kLtS:
    case Op::kLeS: return true;
    case Op::kMove:
    case Op::kGetMod:
    case Op::kSetMod:
    case Op::kJmp:
    case Op::kJmpIf:
    case Op::kJmpIfNot:
    case Op::kNewArr:
    case Op::kAppend:
    case Op::kGetI:
    case Op::kSetI:
    case Op::kCall:
    case Op::kRet:
    case Op::kRet0:
    case Op::kPutN:
    case Op::kPutB:
    case Op::kPutS:
    case Op::kPutTab:
    case Op::kPrintLn:
    case Op::kDefine:
    case Op::kJNotLt:
    case Op::kJNotLe:
    case Op::kJNotEq:
    case Op::kJEq:
    case Op::kLoadF:
    case Op::kCallR:
    case Op::kJNotLtK:
    case Op::kJNotLeK:
    case Op::kJNotGtK:
    case Op::kJNotGeK:
    case Op::kJNotEqK:
    case Op::kJEqK:
    case Op::kTailCall:
    case Op::kLoadS:
    case Op::kStr:
    case Op::kPutStr:
    case Op::kNewRec:
    case Op::kGetF:
    case Op::kSetF:
    case Op::kNewCell:
    case Op::kGetCell:
    case Op::kSetCell:
    case Op::kGetUp:
    case Op::kSetUp:
    case Op::kClosure:
    case Op::kCount: return false;
  }
  return false;
}

std::size_t instruction_words(std::span<const std::uint32_t> code, std::size_t at) {
  if (!is_op(code[at])) return 0;
  switch (op_info(op_of(code[at])).format) {
    case OpFormat::kANumber:
    case OpFormat::kABNumber: return 3;
    case OpFormat::kABBranch:
    case OpFormat::kATailCall: return 2;
    case OpFormat::kANumberBranch: return 4;
    case OpFormat::kString:
    case OpFormat::kAString:
      if (at + 1 >= code.size()) return 2 + kPageWords;  // its length lies outside: it runs past
      return 2 + (std::size_t(code[at + 1]) + 3) / 4;
    case OpFormat::kAStringArgs: return 2;
    case OpFormat::kAClosure:
      if (at + 1 >= code.size()) return 2 + kPageWords;  // its count lies outside: it runs past
      return 2 + std::size_t(code[at + 1]);
    case OpFormat::kARecord: return 3;
    case OpFormat::kABField:
    case OpFormat::kAFieldC: return 1;
    case OpFormat::kNone:
    case OpFormat::kA:
    case OpFormat::kALiteral:
    case OpFormat::kAB:
    case OpFormat::kABC:
    case OpFormat::kAModule:
    case OpFormat::kAFunction:
    case OpFormat::kFunction:
    case OpFormat::kJump:
    case OpFormat::kAJump:
    case OpFormat::kLoopJump:
    case OpFormat::kAMathArgs:
    case OpFormat::kAHostArgs:
    case OpFormat::kABArgs: return 1;
  }
  return 1;
}

std::optional<long> jump_target(std::span<const std::uint32_t> code, std::size_t at) {
  if (!is_op(code[at])) return std::nullopt;
  switch (op_info(op_of(code[at])).format) {
    case OpFormat::kJump:
    case OpFormat::kAJump:
    case OpFormat::kLoopJump: return long(at) + 1 + d_of(code[at]);
    case OpFormat::kABBranch:
    case OpFormat::kANumberBranch:
      if (at + 1 >= code.size()) return std::nullopt;
      return long(at) + 2 + static_cast<std::int32_t>(code[at + 1]);
    default: return std::nullopt;
  }
}

std::vector<std::string> called_host_functions(const Program& program) {
  std::set<std::string> called;
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const std::span<const std::uint32_t> code(program.code(f), program.functions[f].words);
    for (std::size_t pc = 0; pc < code.size();) {
      const std::size_t length = instruction_words(code, pc);
      if (length == 0) break;  // not an instruction: a damaged program (verify_program says so)
      if (op_info(op_of(code[pc])).format == OpFormat::kAHostArgs && b_of(code[pc]) < program.host.size())
        called.insert(program.host[b_of(code[pc])].name);
      pc += length;
    }
  }
  return {called.begin(), called.end()};
}

}  // namespace kiln::jit
