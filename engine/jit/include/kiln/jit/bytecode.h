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

#include <span>
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/jit/types.h"

namespace kiln::jit {

inline constexpr std::size_t kPageWords = 1024;

// clang-format off: enumerators grouped by meaning
enum class Op : std::uint8_t {
  kLoadN,   // a = number (next two words)
  kLoadB,   // a = b (0 or 1)
  kMove,    // a = b
  kGetMod,  // a = module[d]
  kSetMod,  // module[d] = a
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kPow,  // a = b op c
  kNeg,  // a = -b
  kNot,  // a = !b (booleans)
  kEq,
  kLt,
  kLe,        // a = b op c (numbers and booleans)
  kEqRef,     // a = (array b is array c)
  kJmp,       // pc += d
  kJmpIf,     // if a != 0: pc += d
  kJmpIfNot,  // if a == 0: pc += d
  kForPrep,   // a, a+1, a+2 = start, limit, step; a+3 = loop variable; pc += d to the loop test
  kForLoop,   // a += a+2; if in range: a+3 = a, pc += d
  kNewArr,    // a = new empty array (b: 1 = booleans)
  kAppend,    // append b to array a
  kGetI,      // a = b[c]
  kSetI,      // a[b] = c (b may be #a + 1)
  kLen,       // a = #b
  kCall,      // call function d with its arguments in a, a+1, ...; result in a
  kMath,      // a = math function b of c arguments in a, a+1, ...
  kHost,      // a = host function b of c arguments in a, a+1, ...
  kRet,       // return a
  kRet0,      // return nothing
  kPutN,      // print buffer += number a
  kPutB,      // print buffer += boolean a
  kPutS,      // print buffer += string (next word: length, then the bytes)
  kPutTab,    // print buffer += '\t'
  kPrintLn,   // write the print buffer and '\n'
  kDefine,    // function d is defined from here on (Lua defines functions when the statement runs)
  // Compare and branch: the next word is a signed offset from the word after it.
  kJNotLt,  // if not (a < b): jump
  kJNotLe,  // if not (a <= b): jump
  kJNotEq,  // if a ~= b: jump
  kJEq,     // if a == b: jump
  kLoadF,   // a = function d (a value; the function must be defined)
  kCallR,   // call the function value in b with its c arguments in a, a+1, ...; result in a
  // A number constant K as the right operand, in the two words after the instruction (after the
  // offset word for a compare and branch).
  kAddK,     // a = b + K
  kSubK,     // a = b - K
  kMulK,     // a = b * K
  kDivK,     // a = b / K
  kJNotLtK,  // if not (a < K): jump
  kJNotLeK,  // if not (a <= K): jump
  kJNotGtK,  // if not (a > K): jump
  kJNotGeK,  // if not (a >= K): jump
  kJNotEqK,  // if a ~= K: jump
  kJEqK,     // if a == K: jump
  // `return f(...)`: call function (the next word) with its b arguments in a, a+1, ...; result in a.
  // A call of the running function itself reuses its frame (arguments to its first registers, on at
  // its start): recursion in tail position runs in constant depth, as Lua's proper tail calls do.
  kTailCall,
  kCount,
};
// clang-format on

const char* op_name(Op op);

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
inline bool is_constant_arithmetic(Op op) { return op >= Op::kAddK && op <= Op::kDivK; }
// JNOTLTK .. JEQK: the offset word, then K, four words.
inline bool is_constant_branch(Op op) { return op >= Op::kJNotLtK && op <= Op::kJEqK; }
inline bool has_inline_offset(Op op) { return (op >= Op::kJNotLt && op <= Op::kJEq) || is_constant_branch(op); }
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

// One line per instruction: "page 0 +12  ADD r3 r1 r2   ; line 7".
std::string disassemble(const Program& program);

}  // namespace kiln::jit
