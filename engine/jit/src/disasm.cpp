#include <cstdio>
#include <cstring>

#include "kiln/jit/bytecode.h"

namespace kiln::jit {

const char* op_name(Op op) {
  static const char* names[] = {"LOADN",   "LOADB",   "MOVE",    "GETMOD",   "SETMOD",  "ADD",     "SUB",     "MUL",
                                "DIV",     "MOD",     "POW",     "NEG",      "NOT",     "EQ",      "LT",      "LE",
                                "EQREF",   "JMP",     "JMPIF",   "JMPIFNOT", "FORPREP", "FORLOOP", "NEWARR",  "APPEND",
                                "GETI",    "SETI",    "LEN",     "CALL",     "MATH",    "HOST",    "RET",     "RET0",
                                "PUTN",    "PUTB",    "PUTS",    "PUTTAB",   "PRINTLN", "DEFINE",  "JNOTLT",  "JNOTLE",
                                "JNOTEQ",  "JEQ",     "LOADF",   "CALLR",    "ADDK",    "SUBK",    "MULK",    "DIVK",
                                "JNOTLTK", "JNOTLEK", "JNOTGTK", "JNOTGEK",  "JNOTEQK", "JEQK",    "TAILCALL"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(Op::kCount));
  const auto i = static_cast<std::size_t>(op);
  return i < static_cast<std::size_t>(Op::kCount) ? names[i] : "?";
}

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
      std::size_t size = 1;
      switch (op) {
        case Op::kLoadN: {
          const std::uint64_t bits = code[pc + 1] | (std::uint64_t(code[pc + 2]) << 32);
          double v;
          std::memcpy(&v, &bits, 8);
          std::snprintf(buf, sizeof buf, "r%u %.17g", a_of(w), v);
          size = 3;
          break;
        }
        case Op::kGetMod:
        case Op::kSetMod: std::snprintf(buf, sizeof buf, "r%u m%u", a_of(w), ud_of(w)); break;
        case Op::kJmp:
        case Op::kJmpIf:
        case Op::kJmpIfNot:
        case Op::kForPrep:
        case Op::kForLoop:
          std::snprintf(buf, sizeof buf, "r%u -> +%ld", a_of(w), static_cast<long>(pc) + 1 + d_of(w));
          break;
        case Op::kCall:
          std::snprintf(buf, sizeof buf, "r%u %s", a_of(w), program.functions[ud_of(w)].name.c_str());
          break;
        case Op::kTailCall:
          if (pc + 1 < fn.words && code[pc + 1] < program.functions.size())
            std::snprintf(buf, sizeof buf, "r%u %s (%u arguments)", a_of(w),
                          program.functions[code[pc + 1]].name.c_str(), b_of(w));
          size = 2;
          break;
        case Op::kDefine: std::snprintf(buf, sizeof buf, "%s", program.functions[ud_of(w)].name.c_str()); break;
        case Op::kLoadF:
          std::snprintf(buf, sizeof buf, "r%u %s", a_of(w), program.functions[ud_of(w)].name.c_str());
          break;
        case Op::kJNotLt:
        case Op::kJNotLe:
        case Op::kJNotEq:
        case Op::kJEq:
          std::snprintf(buf, sizeof buf, "r%u r%u -> +%ld", a_of(w), b_of(w),
                        static_cast<long>(pc) + 2 + static_cast<std::int32_t>(code[pc + 1]));
          size = 2;
          break;
        case Op::kPutS: {
          const std::uint32_t n = code[pc + 1];
          std::string s;
          for (std::uint32_t k = 0; k < n; ++k) s += static_cast<char>((code[pc + 2 + k / 4] >> (8 * (k % 4))) & 0xff);
          std::snprintf(buf, sizeof buf, "\"%.60s\"", s.c_str());
          size = 2 + (n + 3) / 4;
          break;
        }
        default:
          if (is_constant_arithmetic(op)) {
            std::snprintf(buf, sizeof buf, "r%u r%u %.17g", a_of(w), b_of(w), constant_operand(code, pc));
            size = 3;
          } else if (is_constant_branch(op)) {
            std::snprintf(buf, sizeof buf, "r%u %.17g -> +%ld", a_of(w), constant_operand(code, pc),
                          static_cast<long>(pc) + 2 + static_cast<std::int32_t>(code[pc + 1]));
            size = 4;
          } else {
            std::snprintf(buf, sizeof buf, "r%u r%u r%u", a_of(w), b_of(w), c_of(w));
          }
          break;
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
