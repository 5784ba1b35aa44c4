#include <cstdio>
#include <cstring>

#include "kiln/jit/bytecode.h"

namespace kiln::jit {

std::string disassemble(const Program& program) {
  std::string out;
  char buf[160];
  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const FunctionCode& fn = program.functions[f];
    std::snprintf(buf, sizeof buf, "function %zu %s: %zu words from page %zu, %d params, %d registers\n", f,
                  fn.name.c_str(), fn.words, fn.first_page, fn.params, fn.frame_slots);
    out += buf;
    const std::uint32_t* code = program.code(f);
    for (std::size_t pc = 0; pc < fn.words;) {
      const std::uint32_t w = code[pc];
      const Op op = op_of(w);
      const std::size_t page = fn.first_page + pc / kPageWords;
      std::snprintf(buf, sizeof buf, "  page %zu +%-4zu %-9s", page, pc % kPageWords, op_name(op));
      out += buf;
      if (!is_op(w)) {  // only a program that failed verification holds one
        out += "\n";
        ++pc;
        continue;
      }
      const std::size_t size = instruction_words({code, fn.words}, pc);
      const auto target = jump_target({code, fn.words}, pc);
      const long to = target ? *target : -1;
      const auto function_name = [&](std::uint32_t index) {
        return index < program.functions.size() ? program.functions[index].name.c_str() : "?";
      };
      buf[0] = 0;
      switch (op_info(op).format) {
        case OpFormat::kANumber:
          std::snprintf(buf, sizeof buf, "r%u %.17g", a_of(w), constant_operand(code, pc));
          break;
        case OpFormat::kAModule: std::snprintf(buf, sizeof buf, "r%u m%u", a_of(w), ud_of(w)); break;
        case OpFormat::kJump:
        case OpFormat::kAJump:
        case OpFormat::kLoopJump:
        case OpFormat::kABBranch:
          if (op_info(op).format == OpFormat::kABBranch)
            std::snprintf(buf, sizeof buf, "r%u r%u -> +%ld", a_of(w), b_of(w), to);
          else
            std::snprintf(buf, sizeof buf, "r%u -> +%ld", a_of(w), to);
          break;
        case OpFormat::kAFunction: std::snprintf(buf, sizeof buf, "r%u %s", a_of(w), function_name(ud_of(w))); break;
        case OpFormat::kFunction: std::snprintf(buf, sizeof buf, "%s", function_name(ud_of(w))); break;
        case OpFormat::kATailCall:
          if (pc + 1 < fn.words)
            std::snprintf(buf, sizeof buf, "r%u %s (%u arguments)", a_of(w), function_name(code[pc + 1]), b_of(w));
          break;
        case OpFormat::kString:
        case OpFormat::kAString: {
          const std::uint32_t n = pc + 1 < fn.words ? code[pc + 1] : 0;
          std::string text;
          for (std::uint32_t k = 0; k < n && pc + 2 + k / 4 < fn.words; ++k)
            text += static_cast<char>((code[pc + 2 + k / 4] >> (8 * (k % 4))) & 0xff);
          if (op_info(op).format == OpFormat::kAString)
            std::snprintf(buf, sizeof buf, "r%u \"%.60s\"", a_of(w), text.c_str());
          else
            std::snprintf(buf, sizeof buf, "\"%.60s\"", text.c_str());
          break;
        }
        case OpFormat::kAClosure:
          std::snprintf(buf, sizeof buf, "r%u %s (%u upvalues)", a_of(w), function_name(ud_of(w)),
                        pc + 1 < fn.words ? code[pc + 1] : 0);
          break;
        case OpFormat::kARecord: std::snprintf(buf, sizeof buf, "r%u %u fields", a_of(w), b_of(w)); break;
        case OpFormat::kABField: std::snprintf(buf, sizeof buf, "r%u r%u .%u", a_of(w), b_of(w), c_of(w)); break;
        case OpFormat::kAFieldC: std::snprintf(buf, sizeof buf, "r%u .%u r%u", a_of(w), b_of(w), c_of(w)); break;
        case OpFormat::kAStringArgs:
          std::snprintf(buf, sizeof buf, "r%u string function %u (%u arguments)", a_of(w), b_of(w), c_of(w));
          break;
        case OpFormat::kABNumber:
          std::snprintf(buf, sizeof buf, "r%u r%u %.17g", a_of(w), b_of(w), constant_operand(code, pc));
          break;
        case OpFormat::kANumberBranch:
          std::snprintf(buf, sizeof buf, "r%u %.17g -> +%ld", a_of(w), constant_operand(code, pc), to);
          break;
        case OpFormat::kNone:
        case OpFormat::kA:
        case OpFormat::kALiteral:
        case OpFormat::kAB:
        case OpFormat::kABC:
        case OpFormat::kAMathArgs:
        case OpFormat::kAHostArgs:
        case OpFormat::kABArgs: std::snprintf(buf, sizeof buf, "r%u r%u r%u", a_of(w), b_of(w), c_of(w)); break;
      }
      out += buf;
      std::snprintf(buf, sizeof buf, "   ; line %d\n", fn.lines[pc]);
      out += buf;
      pc += size;
    }
  }
  for (std::size_t p = 0; p < program.page_count(); ++p) {
    out += "page " + std::to_string(p) + " entries:";
    for (auto e : program.entries[p]) out += " +" + std::to_string(e);
    out += "\n";
  }
  return out;
}

}  // namespace kiln::jit
