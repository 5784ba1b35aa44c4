#pragma once
// Small callees compiled into their callers' pages. The caller's code then depends on bytes outside
// its page: the code of the functions it inlines. Those bytes follow the page's own words in what
// the JIT keys, stores and compares (the page's key words), so an edit of an inlined callee changes
// the caller's key and never serves the caller's old code.
//
// Key words: the page's kPageWords words, then for each inlined callee (by function index, rising)
//   function index, parameter count (kValueCalleeBit set when the callee is inlined into calls through
//   function values), code length n, and its n code words.
//
// A call through a function value (kCallR, its argument count in c) can reach only the functions
// whose value the program takes (kLoadF) with as many parameters. When at most kMaxValueCallees of
// them are inlinable, the call compiles to a comparison of the value with each and its inlined code,
// and a real call for any other value. An edit of any of them changes the key, as above.
//
// A callee is inlined when its whole code is a short leaf that never needs a frame of its own: at
// most kMaxInlineWords words, no calls, no loops (no backward branch: nothing counts against the
// budget inside it), and nothing that changes state outside its registers (printing, host calls,
// allocation, stores to module variables or arrays, definitions). Whatever may still stop it (an
// array index out of range) stops it before it changed anything, so the interpreter can run the
// whole call again from its start and report the error where the interpreter would. A function
// that would be such a leaf but for calls by index to leaves (a vector length calling a dot product)
// is inlined with those leaves inside it: one level deep, each inner call ticking the budget and
// checking its frame as the interpreter does, and any stop inside runs the outer call again.
//
// Thread-safety: pure functions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/bytecode.h"

namespace kiln::jit {

inline constexpr std::size_t kMaxInlineWords = 64;
inline constexpr std::size_t kMaxValueCallees = 4;
inline constexpr std::uint32_t kValueCalleeBit = 1u << 31;

// Whether a function with this code is inlined where it is called by index: a leaf.
bool inlinable(std::span<const std::uint32_t> code);

// A function that follows a leaf's rules but for calls by index, each to a leaf, is inlined too,
// with those leaves inlined inside it: the leaves it calls (rising), or nothing when it is not such
// a function.
std::optional<std::vector<std::uint32_t>> inlinable_calling_leaves(const Program& program, std::uint32_t f);

// The inlinable functions whose value a program takes, by parameter count (rising function index
// in each): what a call through a function value may inline. Computed once per program.
struct ValueCallees {
  std::vector<std::vector<std::uint32_t>> by_params;
};
ValueCallees value_callees(const Program& program);

// The words that key program page `page`: the page, then the callees its calls (reachable from the
// page's program entries) inline. `values` is value_callees(program).
std::vector<std::uint32_t> page_key_words(const Program& program, std::size_t page, const ValueCallees& values);

struct InlineCallee {
  std::uint32_t function = 0;
  int params = 0;
  bool for_values = false;              // inlined into calls through function values too
  std::span<const std::uint32_t> code;  // inside the key words
};

// The callees after the page in `key_words`; an error for anything but kPageWords words followed
// by well-formed records of inlinable code in rising function order.
Result<std::vector<InlineCallee>> inline_callees(std::span<const std::uint32_t> key_words);

}  // namespace kiln::jit
