#pragma once
// Kiln's script bytecode: 32-bit instruction words in pages of kPageWords (the "guest code" the
// JIT compiles). A word is  op:8 | a:8 | b:8 | c:8  or  op:8 | a:8 | d:16 (d signed for jumps).
// Number constants are inline: LOADN and the constant-operand instructions (ADDK ..., JNOTLTK ...)
// hold the double's bits in two words of their own; PUTS is followed by a length word and the
// string's bytes. So a page's bytes, with the function table and host/math
// tables resolved at run time, fully determine what it means: calls name a function index,
// never an address; jumps are relative.
//
// Layout: every function starts on a fresh page, so editing one function's body changes only its
// own pages, and a function that grows shifts no other function. A function longer than a page
// continues on the next pages. Line numbers live beside the code (not in it), so that editing
// lines above a function does not change its pages.

#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/jit/opcodes.h"
#include "kiln/jit/types.h"

namespace kiln::jit {

inline constexpr std::size_t kPageWords = 1024;

enum class Op : std::uint8_t {
#define KILN_OP_ENUMERATOR(name, mnemonic, format, flow, effect) k##name,
  KILN_OPCODES(KILN_OP_ENUMERATOR)
#undef KILN_OP_ENUMERATOR
      kCount,
};

// An instruction's columns of KILN_OPCODES.
struct OpInfo {
  const char* mnemonic;
  OpFormat format;
  OpFlow flow;
  std::uint8_t effect;  // OpEffect bits
};

inline constexpr OpInfo kOpInfo[] = {
#define KILN_OP_INFO(name, mnemonic, format, flow, effect) \
  {#mnemonic, OpFormat::format, OpFlow::flow, std::uint8_t(effect)},
    KILN_OPCODES(KILN_OP_INFO)
#undef KILN_OP_INFO
};
static_assert(std::size(kOpInfo) == std::size_t(Op::kCount));

inline bool is_op(std::uint32_t w) { return (w & 0xff) < std::uint32_t(Op::kCount); }
// The row of `op`, which must be an instruction (is_op).
inline const OpInfo& op_info(Op op) { return kOpInfo[std::size_t(op)]; }
const char* op_name(Op op);  // "?" for what is not an instruction
// Whether the registers the instruction writes always get a number or a boolean (never a
// reference the collector must see).
bool writes_only_numbers(Op op);

inline std::uint32_t encode_abc(Op op, unsigned a, unsigned b, unsigned c) {
  return std::uint32_t(op) | (a << 8) | (b << 16) | (c << 24);
}
inline std::uint32_t encode_ad(Op op, unsigned a, int d) {
  return std::uint32_t(op) | (a << 8) | (std::uint32_t(std::uint16_t(d)) << 16);
}
inline Op op_of(std::uint32_t w) { return Op(w & 0xff); }
inline unsigned a_of(std::uint32_t w) { return (w >> 8) & 0xff; }
inline unsigned b_of(std::uint32_t w) { return (w >> 16) & 0xff; }
inline unsigned c_of(std::uint32_t w) { return (w >> 24) & 0xff; }
inline int d_of(std::uint32_t w) { return std::int16_t(w >> 16); }
inline unsigned ud_of(std::uint32_t w) { return w >> 16; }
// a = b op c with two register operands: arithmetic and comparisons (ADD .. POW, EQ, LT, LE, EQREF).
inline bool is_binary(Op op) { return (op >= Op::kAdd && op <= Op::kPow) || (op >= Op::kEq && op <= Op::kEqRef); }
// ADDK .. DIVK: a = b op K, three words.
inline bool is_constant_arithmetic(Op op) { return op_info(op).format == OpFormat::kABNumber; }
// JNOTLTK .. JEQK: the offset word, then K, four words.
inline bool is_constant_branch(Op op) { return op_info(op).format == OpFormat::kANumberBranch; }
inline bool has_inline_offset(Op op) { return op_info(op).format == OpFormat::kABBranch || is_constant_branch(op); }
// The words of the instruction at code[at], inline data included; 0 where code[at] is not an
// instruction. PUTS reads its length word: where that lies past the span, the result is past it too.
std::size_t instruction_words(std::span<const std::uint32_t> code, std::size_t at);
// Where the jump or branch at code[at] goes (an index into code, which may lie outside it);
// nothing for an instruction that does not jump or whose offset word lies past the span.
std::optional<long> jump_target(std::span<const std::uint32_t> code, std::size_t at);
// The constant K of a constant-operand instruction at code[at] (its words: see Op).
inline double constant_operand(const std::uint32_t* code, std::size_t at) {
  const std::size_t k = has_inline_offset(op_of(code[at])) ? at + 2 : at + 1;
  const std::uint64_t bits = code[k] | (std::uint64_t(code[k + 1]) << 32);
  double v;
  static_assert(sizeof v == sizeof bits);
  __builtin_memcpy(&v, &bits, sizeof v);
  return v;
}

struct FunctionCode {
  std::string name;
  std::size_t first_page = 0;  // code starts at word 0 of this page
  std::size_t words = 0;       // length of the code
  int params = 0;
  std::vector<Type> param_types;
  int frame_slots = 0;  // registers: locals and temporaries
  Type result = Type::kVoid;
  std::vector<int> lines;  // source line of each code word (0 for inline data)
};

struct Program {
  std::string file;
  std::vector<std::uint32_t> words;                 // all pages, back to back: page p is words[p * kPageWords, ...)
  std::vector<std::vector<std::uint16_t>> entries;  // per page: word offsets where execution may enter from outside
  std::vector<FunctionCode> functions;              // [0] is the chunk
  int module_slots = 0;
  std::vector<HostSignature> host;

  std::size_t page_count() const { return words.size() / kPageWords; }
  std::span<const std::uint32_t> page(std::size_t p) const { return {words.data() + p * kPageWords, kPageWords}; }
  // The code of function f as one run of words (its pages are consecutive).
  const std::uint32_t* code(std::size_t f) const { return words.data() + functions[f].first_page * kPageWords; }
};

// The names of the engine functions the program's code calls (its host table declares every one a
// project offers, called or not), sorted.
std::vector<std::string> called_host_functions(const Program& program);

// One line per instruction: "page 0 +12  ADD r3 r1 r2   ; line 7".
std::string disassemble(const Program& program);

}  // namespace kiln::jit
