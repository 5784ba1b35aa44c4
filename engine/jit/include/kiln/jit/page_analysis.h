#pragma once
// What a page's bytes say about its code, decoded from its entries alone (never from outside the
// page, so that a compiled page depends on nothing but its bytes): where instructions start, which
// words the code reads, and the loop heads (targets of backward branches) where a running loop
// may enter compiled code.
//
// Thread-safety: pure functions.

#include <bitset>
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/jit/bytecode.h"

namespace kiln::jit {

struct PageShape {
  std::bitset<kPageWords> starts;         // instruction starts reachable from the entries
  std::bitset<kPageWords> used;           // every word those instructions occupy
  std::bitset<kPageWords> straddles;      // instructions whose encoding runs past the page end
  std::vector<std::uint16_t> loop_heads;  // in-page targets of backward branches, sorted
};

PageShape analyze_page(std::span<const std::uint32_t> page, std::span<const std::uint16_t> entries);

// The entries the JIT compiles a page for: the program's entries and the loop heads they reach.
std::vector<std::uint16_t> jit_entries(std::span<const std::uint32_t> page,
                                       std::span<const std::uint16_t> program_entries);

// Where control goes after the instruction at `at` (page-relative, may be outside the page):
// the fall-through and, for branches, the target. Calls, returns and other instructions that go
// through the interpreter list only their fall-through (their continuation).
struct Successors {
  int fall = -1;    // -1: none (unconditional jump, return)
  int target = -1;  // a branch target, or -1
  bool has_target = false;
};
Successors successors(std::span<const std::uint32_t> page, std::size_t at);

}  // namespace kiln::jit
