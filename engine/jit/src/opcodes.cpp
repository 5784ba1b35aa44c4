#include "kiln/jit/bytecode.h"

#include <set>

namespace kiln::jit {

const char* op_name(Op op) { return std::size_t(op) < std::size(kOpInfo) ? kOpInfo[std::size_t(op)].mnemonic : "?"; }

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
