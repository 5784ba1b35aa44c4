#pragma once
// The contract between the interpreter and compiled pages (what a compiled page depends
// on, as an ABI). A compiled page is one native function
//
//     std::uint64_t page(Context* ctx, std::uint32_t entry)
//
// entered at `entry`, a word offset in its page that its entry set contains. It runs until control
// leaves the page, returns, or reaches an instruction it does not run natively (printing, host
// calls, an array index out of range, a budget check that would fail, an allocation the runtime
// refuses: see runtime_op). It returns the
// word offset, relative to its page start (negative or >= kPageWords when control left the page),
// where the interpreter continues, and kInterpretFlag when the instruction there must be
// interpreted before compiled code may run again (else it may enter compiled code at once).
//
// A return stays in compiled code too: the page stores the result in its frame's first register
// (where the caller expects it) and exits with kReturnedFlag.
//
// A call stays in compiled code. The page stores the argument registers, then, when the callee's
// first page has code (ctx->entries), the frame stack and the register stack have room, calls may
// still nest on the machine stack (ctx->native_left) and the budget allows one more tick, it pushes
// the callee's frame itself and enters that code at word 0; a callee that stops before returning
// is finished by ctx->resume. Otherwise it asks ctx->call, which runs the callee to its return
// (compiled pages directly, the interpreter for the rest). Either way the result is in the first
// argument register, and the page reads back the registers from there up. The stack may have
// moved (the page rebases its registers on ctx->stack) and the budget counted (*counted is stored
// before and read after). When the call cannot be made there (a callee not defined yet, the budget
// or cancellation, the call depth, calls nested too deep on the machine stack) ctx->call says so and
// the page exits to the interpreter at the call; when the callee failed (an error to report) the
// page exits at once with kFailedFlag, the error kept by the interpreter.
//
// Inside a page these steps are the same, but when the callee's first page is the calling page itself
// (recursion), the page enters its own code directly, passing the callee's registers, the budget
// count, the frame count and native_left in machine registers rather than through the context (which
// it still updates for the interpreter).
//
// A call of a small leaf function may be compiled into the caller's page instead (inlining.h): it
// checks what the interpreter's call would (defined, call depth, one budget tick, cancellation),
// pushes no frame, and when its code stops before returning, it exits to the interpreter at the
// call, which runs the whole call again (the inlined code changes nothing before it stops).
//
// A page appends to an array itself (a[#a + 1] = v, or a table constructor's items) while the
// array has capacity and no collection is due (Context::elements); growing the storage is the
// interpreter's.
//
// Compiled code allocates only through ctx->runtime_op, which runs the interpreter's code for the
// instruction; the collector (heap.h) runs there, at an allocation, and finds every live reference
// in the register stack. So before a call or a runtime_op a page stores every register it wrote,
// not only the arguments: the callee may collect.
//
// Everything the code touches comes through `ctx`: the frame's registers, module variables, the
// helper table (math functions: no libcalls, no host address in the code), the call entry, the
// budget counter and the cancellation flag. So the code bakes no address and a blob of it runs in
// any process of the same build on the same host.

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kiln::jit::abi {

struct ArrayData;

// A register or module variable: a number (booleans are 0/1), an array or another heap object
// (a string).
union Value {
  double n;
  ArrayData* a;
  void* ref;
};
static_assert(sizeof(Value) == 8);

// An array's elements (the layout compiled GETI/SETI/LEN read).
struct ArrayData {
  Value* data;
  std::uint64_t size;
  std::uint64_t capacity;
};

// A record's fields are Values from this offset of the record's address on (GETF and SETF read and
// write field i at kRecordFieldsOffset + 8 i).
inline constexpr std::size_t kRecordFieldsOffset = 16;
// A function value is a closure: the function's index (32 bits) at its address, its upvalues'
// cells (8 bytes each) from kClosureCellsOffset; a cell's value is at the cell's address.
inline constexpr std::size_t kClosureCellsOffset = 8;

// The helper table: every math function compiled code calls. One signature for all (unary
// functions ignore y), so a call through the table is uniform.
using Helper = double (*)(double x, double y);
// clang-format off: enumerators grouped by meaning
enum HelperIndex : std::uint32_t {
  kHelperPow,
  kHelperFmod,
  kHelperSin,
  kHelperCos,
  kHelperTan,
  kHelperAsin,
  kHelperAcos,
  kHelperAtan,
  kHelperExp,
  kHelperLog,
  kHelperLog10,
  kHelperAtan2,
  kHelperCount,
};
// clang-format on
const Helper* helper_table();  // process-wide, filled with the C library's functions

struct Context;

// A call's frame, as the interpreter keeps it.
struct Frame {
  std::uint64_t function;
  std::uint64_t pc;      // next instruction (of a caller: where its call returns)
  std::uint64_t base;    // the frame's first register in the register stack
  std::uint64_t result;  // where its result goes (the caller's argument register: base)
};
static_assert(sizeof(Frame) == 32);

// How compiled code calls a function directly: the code of its first page (entered at word 0), null
// until it has some, and how many registers its frame needs (frame slots + 1).
struct CallEntry {
  std::uint64_t (*code)(Context* ctx, std::uint32_t entry);
  std::uint64_t registers;
};
static_assert(sizeof(CallEntry) == 16);

// What ctx->call and ctx->resume answer.
enum CallStatus : std::uint32_t {
  kCallReturned = 0,   // the result is in the first argument register
  kCallInterpret = 1,  // not made: the interpreter runs the call instruction
  kCallFailed = 2,     // the callee failed: the page exits with kFailedFlag
};
// Calls function `callee` with its arguments in regs[a], regs[a + 1], ...
using CallFunction = std::uint32_t (*)(Context* ctx, std::uint32_t callee, std::uint32_t a);
// Finishes the call of the top frame, whose code stopped with `exit` before returning (kCallReturned
// or kCallFailed).
using ResumeFunction = std::uint32_t (*)(Context* ctx, std::uint64_t exit);

// Runs the one instruction whose words are at `instruction` (a copy the page holds) on the running
// frame's registers `regs`: an instruction that allocates (NEWARR NEWREC NEWCELL CLOSURE LOADS
// LOADF STR). The page stored every register it wrote first: the heap may
// collect. kCallReturned: done, its result in its register; anything else: the page exits to the
// interpreter at the instruction, which runs it again and reports what stopped it.
using RuntimeOpFunction = std::uint32_t (*)(Context* ctx, Value* regs, const std::uint32_t* instruction);

// The order of two strings (negative, zero, positive: bytes compared unsigned, a prefix first). It
// reads the strings and nothing else, allocates nothing: EQS, LTS and LES call it in place, with
// no register stored first.
using CompareStringsFunction = std::int32_t (*)(const void* a, const void* b);

struct Context {
  Value* regs;             // the current frame's registers
  Value* module;           // module variables
  const Helper* helpers;   // helper_table()
  std::uint64_t* counted;  // backward jumps and calls so far (checked mode)
  std::uint64_t budget;    // 0: unlimited
  const std::atomic<bool>* cancelled;
  CallFunction call;         // the interpreter's call entry
  void* vm;                  // the interpreter, for `call` and `resume`
  ResumeFunction resume;     // finishes a direct call whose callee stopped before returning
  const CallEntry* entries;  // per function
  Frame* frames;             // the frame stack: frames[frame_count - 1] is the running one
  std::uint64_t frame_count;
  std::uint64_t frame_limit;  // a direct call needs frame_count < frame_limit
  Value* stack;               // the register stack (every frame's registers)
  Value* stack_end;
  std::uint64_t native_left;     // calls that may still nest on the machine stack
  const std::uint8_t* defined;   // per function: non-zero once its definition ran (an inlined call checks it)
  std::uint64_t* elements;       // words allocated since the heap's last collection (an append counts one) ...
  std::uint64_t max_elements;    // ... and how many there may be before the next collection
  RuntimeOpFunction runtime_op;  // runs one allocating or string instruction for a page
  CompareStringsFunction compare_strings;
};
static_assert(std::atomic<bool>::is_always_lock_free && sizeof(std::atomic<bool>) == 1);

inline constexpr std::uint64_t kInterpretFlag = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kFailedFlag = std::uint64_t{1} << 33;
inline constexpr std::uint64_t kReturnedFlag = std::uint64_t{1} << 34;
using PageFunction = std::uint64_t (*)(Context* ctx, std::uint32_t entry);

inline std::uint64_t exit_code(std::int32_t target, bool interpret) {
  return std::uint32_t(target) | (interpret ? kInterpretFlag : 0);
}
inline std::int32_t exit_target(std::uint64_t code) { return std::int32_t(std::uint32_t(code)); }
inline bool exit_interprets(std::uint64_t code) { return (code & kInterpretFlag) != 0; }
inline bool exit_failed(std::uint64_t code) { return (code & kFailedFlag) != 0; }
inline bool exit_returned(std::uint64_t code) { return (code & kReturnedFlag) != 0; }

// Codegen modes (like an emulator's FR mode): part of every key, recorded with published code.
enum class JitMode : std::uint32_t {
  kChecked = 0,    // backward jumps count against the budget and look at the cancellation flag
  kUnchecked = 1,  // no checks: for scripts the engine trusts (no budget, never cancelled)
};

}  // namespace kiln::jit::abi
