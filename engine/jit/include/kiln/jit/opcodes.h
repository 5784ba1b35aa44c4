#pragma once
// The one table of Kiln's script instructions. The Op enum, the mnemonics, each instruction's
// operand format (its length in words, which fields are registers, what the inline words hold),
// its control flow and the registers it reads and writes all come from KILN_OPCODES; the
// disassembler, the verifier of cooked bytecode and the page analyses read those columns, and the
// interpreter's dispatch table is made from the same list, so an instruction without a handler
// does not compile. Adding an instruction: a row here, its label in vm.cpp, its case in the page
// compiler's emitter (which lists every instruction; -Werror=switch) and the code generator's use.
//
// Columns: X(Name, MNEMONIC, Format, Flow, Effect)
//   Name     the enumerator's name after the k (kLoadN)
//   MNEMONIC the disassembler's name, and the interpreter's label (op_LOADN)
//   Format   the operand layout (OpFormat)
//   Flow     where control goes next (OpFlow)
//   Effect   the registers it reads and writes (OpEffect bits)

#include <cstdint>

// clang-format off: one row an instruction, the columns aligned
#define KILN_OPCODES(X)                                                                                     \
  /* a = number (the next two words) */                                                                     \
  X(LoadN, LOADN, kANumber, kNext, kDefA)                                                                   \
  /* a = b (0 or 1) */                                                                                      \
  X(LoadB, LOADB, kALiteral, kNext, kDefA)                                                                  \
  X(Move, MOVE, kAB, kNext, kDefA | kUseB)                                                                  \
  /* a = module[d]; module[d] = a */                                                                        \
  X(GetMod, GETMOD, kAModule, kNext, kDefA)                                                                 \
  X(SetMod, SETMOD, kAModule, kNext, kUseA)                                                                 \
  /* a = b op c */                                                                                          \
  X(Add, ADD, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  X(Sub, SUB, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  X(Mul, MUL, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  X(Div, DIV, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  X(Mod, MOD, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  X(Pow, POW, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  /* a = -b; a = !b (booleans) */                                                                           \
  X(Neg, NEG, kAB, kNext, kDefA | kUseB)                                                                    \
  X(Not, NOT, kAB, kNext, kDefA | kUseB)                                                                    \
  /* a = b op c (numbers and booleans); EQREF: a = (array b is array c) */                                  \
  X(Eq, EQ, kABC, kNext, kDefA | kUseB | kUseC)                                                             \
  X(Lt, LT, kABC, kNext, kDefA | kUseB | kUseC)                                                             \
  X(Le, LE, kABC, kNext, kDefA | kUseB | kUseC)                                                             \
  X(EqRef, EQREF, kABC, kNext, kDefA | kUseB | kUseC)                                                       \
  /* pc += d; if a != 0: pc += d; if a == 0: pc += d */                                                     \
  X(Jmp, JMP, kJump, kAlways, 0)                                                                            \
  X(JmpIf, JMPIF, kAJump, kMaybe, kUseA)                                                                    \
  X(JmpIfNot, JMPIFNOT, kAJump, kMaybe, kUseA)                                                              \
  /* a, a+1, a+2 = start, limit, step; a+3 = loop variable. FORPREP: pc += d to the loop test.   */         \
  /* FORLOOP: a += a+2; if in range: a+3 = a, pc += d                                             */        \
  X(ForPrep, FORPREP, kLoopJump, kAlways, kDefA | kUseLoop)                                                 \
  X(ForLoop, FORLOOP, kLoopJump, kMaybe, kDefA | kUseLoop | kDefLoopVariable)                               \
  /* a = new empty array (b: 1 = booleans, 2 = references); append b to array a */                          \
  X(NewArr, NEWARR, kALiteral, kNext, kDefA)                                                                \
  X(Append, APPEND, kAB, kNext, kUseA | kUseB)                                                              \
  /* a = b[c]; a[b] = c (b may be #a + 1); a = #b */                                                        \
  X(GetI, GETI, kABC, kNext, kDefA | kUseB | kUseC)                                                         \
  X(SetI, SETI, kABC, kNext, kUseA | kUseB | kUseC)                                                         \
  X(Len, LEN, kAB, kNext, kDefA | kUseB)                                                                    \
  /* call function d with its arguments in a, a+1, ...; result in a */                                      \
  X(Call, CALL, kAFunction, kNext, kCallFromA)                                                              \
  /* a = math function b / host function b of c arguments in a, a+1, ... */                                 \
  X(Math, MATH, kAMathArgs, kNext, kDefA | kUseArgs)                                                        \
  X(Host, HOST, kAHostArgs, kNext, kDefA | kUseArgs)                                                        \
  /* return a; return nothing */                                                                            \
  X(Ret, RET, kA, kReturn, kUseA)                                                                           \
  X(Ret0, RET0, kNone, kReturn, 0)                                                                          \
  /* print buffer += number a, boolean a, a string (the next word: its length, then its bytes), a tab */    \
  X(PutN, PUTN, kA, kNext, kUseA)                                                                           \
  X(PutB, PUTB, kA, kNext, kUseA)                                                                           \
  X(PutS, PUTS, kString, kNext, 0)                                                                          \
  X(PutTab, PUTTAB, kNone, kNext, 0)                                                                        \
  /* write the print buffer and '\n' */                                                                     \
  X(PrintLn, PRINTLN, kNone, kNext, 0)                                                                      \
  /* function d is defined from here on (Lua defines functions when the statement runs) */                  \
  X(Define, DEFINE, kFunction, kNext, 0)                                                                    \
  /* compare and branch: the next word is a signed offset from the word after it */                         \
  X(JNotLt, JNOTLT, kABBranch, kMaybe, kUseA | kUseB)                                                       \
  X(JNotLe, JNOTLE, kABBranch, kMaybe, kUseA | kUseB)                                                       \
  X(JNotEq, JNOTEQ, kABBranch, kMaybe, kUseA | kUseB)                                                       \
  X(JEq, JEQ, kABBranch, kMaybe, kUseA | kUseB)                                                             \
  /* a = function d (a value: a closure without upvalues; the function must be defined) */                  \
  X(LoadF, LOADF, kAFunction, kNext, kDefA)                                                                 \
  /* call the closure in b with its c arguments in a, a+1, ... and itself in a+c; result in a */            \
  X(CallR, CALLR, kABArgs, kNext, kUseB | kCallFromA)                                                       \
  /* a = b op K, the number K in the two words after the instruction */                                     \
  X(AddK, ADDK, kABNumber, kNext, kDefA | kUseB)                                                            \
  X(SubK, SUBK, kABNumber, kNext, kDefA | kUseB)                                                            \
  X(MulK, MULK, kABNumber, kNext, kDefA | kUseB)                                                            \
  X(DivK, DIVK, kABNumber, kNext, kDefA | kUseB)                                                            \
  /* compare a with K and branch: the offset word, then K */                                                \
  X(JNotLtK, JNOTLTK, kANumberBranch, kMaybe, kUseA)                                                        \
  X(JNotLeK, JNOTLEK, kANumberBranch, kMaybe, kUseA)                                                        \
  X(JNotGtK, JNOTGTK, kANumberBranch, kMaybe, kUseA)                                                        \
  X(JNotGeK, JNOTGEK, kANumberBranch, kMaybe, kUseA)                                                        \
  X(JNotEqK, JNOTEQK, kANumberBranch, kMaybe, kUseA)                                                        \
  X(JEqK, JEQK, kANumberBranch, kMaybe, kUseA)                                                              \
  /* return f(...): call the function in the next word with its b arguments in a, a+1, ...; result in a. */ \
  /* A call of the running function itself reuses its frame: recursion in tail position runs in     */      \
  /* constant depth, as Lua's proper tail calls do.                                                  */     \
  X(TailCall, TAILCALL, kATailCall, kNext, kCallFromA)                                                      \
  /* strings. LOADS: a = the string constant in the next words (its length, then its bytes)      */         \
  X(LoadS, LOADS, kAString, kNext, kDefA)                                                                   \
  /* a = string function b (StringFn) of c arguments in a, a+1, ...; the next word: their kinds */          \
  X(Str, STR, kAStringArgs, kNext, kDefA | kUseArgs)                                                        \
  /* a = #b (string b); a = b op c (strings: equal, less, less or equal in byte order)          */          \
  X(LenS, LENS, kAB, kNext, kDefA | kUseB)                                                                  \
  X(EqS, EQS, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  X(LtS, LTS, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  X(LeS, LES, kABC, kNext, kDefA | kUseB | kUseC)                                                           \
  /* print buffer += string a                                                                    */         \
  X(PutStr, PUTSTR, kA, kNext, kUseA)                                                                       \
  /* records. NEWREC: a = a new record of b fields (0), the next two words the mask of its      */          \
  /* fields that hold references. GETF: a = field c of record b. SETF: field b of record a = c. */          \
  X(NewRec, NEWREC, kARecord, kNext, kDefA)                                                                 \
  X(GetF, GETF, kABField, kNext, kDefA | kUseB)                                                             \
  X(SetF, SETF, kAFieldC, kNext, kUseA | kUseC)                                                             \
  /* closures. NEWCELL: a = a new cell (b: 1 when it holds references); a = cell b's value;     */          \
  /* cell a's value = b; a = upvalue c of the closure in b; upvalue b of the closure in a = c.   */         \
  X(NewCell, NEWCELL, kALiteral, kNext, kDefA)                                                              \
  X(GetCell, GETCELL, kAB, kNext, kDefA | kUseB)                                                            \
  X(SetCell, SETCELL, kAB, kNext, kUseA | kUseB)                                                            \
  X(GetUp, GETUP, kABField, kNext, kDefA | kUseB)                                                           \
  X(SetUp, SETUP, kAFieldC, kNext, kUseA | kUseC)                                                           \
  /* a = a new closure of function d; the next word its upvalue count, then one word each: a    */          \
  /* register holding a cell, or (kFromUpvalue set) an upvalue of the running closure            */         \
  X(Closure, CLOSURE, kAClosure, kNext, kDefA)
// clang-format on

namespace kiln::jit {

// How an instruction's fields and inline words are laid out. A word is  op:8 | a:8 | b:8 | c:8
// or  op:8 | a:8 | d:16.
enum class OpFormat : std::uint8_t {
  kNone,           // nothing
  kA,              // register a
  kALiteral,       // register a, a small number b
  kAB,             // registers a, b
  kABC,            // registers a, b, c
  kANumber,        // register a; a number in the next two words
  kABNumber,       // registers a, b; a number in the next two words
  kAModule,        // register a, module slot d
  kAFunction,      // register a, function d
  kFunction,       // function d
  kJump,           // offset d from the next word
  kAJump,          // register a, offset d from the next word
  kLoopJump,       // registers a .. a+3, offset d from the next word
  kABBranch,       // registers a, b; the next word an offset from the word after it
  kANumberBranch,  // register a; the next word an offset from the word after it, then a number in two
  kAMathArgs,      // registers a .. a+c-1, math function b
  kAHostArgs,      // registers a .. a+c-1, host function b
  kABArgs,         // registers a .. a+c-1 and b
  kATailCall,      // registers a .. a+b-1; the next word a function
  kString,         // the next word a length, then the bytes, four a word
  kAString,        // register a; the next word a length, then the bytes, four a word
  kAStringArgs,    // registers a .. a+c-1, string function b; the next word the arguments' kinds (ArgKind)
  kARecord,        // register a, a field count b; the next two words a mask of b bits
  kABField,        // registers a, b; a field index c
  kAFieldC,        // registers a, c; a field index b
  kAClosure,       // register a, function d; the next word a count, then that many upvalue sources
};

// An upvalue source word of CLOSURE: a register of the running function (holding a cell), or with
// this bit an upvalue of the running closure (whose closure is in register `params`).
inline constexpr std::uint32_t kFromUpvalue = 0x80000000u;

enum class OpFlow : std::uint8_t {
  kNext,    // on to the next instruction
  kAlways,  // to the jump's target
  kMaybe,   // to the target or on
  kReturn,  // out of the function
};

// What an instruction does to registers; bits of OpEffect.
enum OpEffect : std::uint8_t {
  kDefA = 1,              // writes a
  kUseA = 2,              // reads a
  kUseB = 4,              // reads b
  kUseC = 8,              // reads c
  kUseArgs = 16,          // reads a .. a+c-1
  kUseLoop = 32,          // reads a .. a+2 (start or counter, limit, step)
  kDefLoopVariable = 64,  // writes a+3
  kCallFromA = 128,       // a call: reads its arguments from a up, and may write every register from a up
};

}  // namespace kiln::jit
