#pragma once
// Numeric for loops whose array accesses are indexed by the loop's own variable: where compiled
// code may check an array's bounds once per loop instead of at every access.
//
// In such a loop (FORPREP at `prep`, FORLOOP at `loop`, the body between them), nothing in the body
// writes the loop's counter, limit, step or variable, nor the array registers listed; nothing from
// outside the loop jumps into its body. So while the body runs, each index register holds the loop
// variable, whose values run from the first one to the limit by the step, and each array stays the
// same array, whose size only grows (no instruction shrinks an array). If at the loop's start the
// first value and the step are whole numbers and every value lies in [1, size], no access of the
// list can fail. The check belongs to the compiled code (page_emitter): at FORPREP, and wherever a
// page is entered inside the body, from the registers as they are then.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <span>
#include <vector>

#include "kiln/jit/page_analysis.h"
#include "kiln/jit/register_liveness.h"

namespace kiln::jit {

struct IndexedAccess {
  std::uint16_t at;    // a GETI or SETI
  std::uint8_t array;  // its array register
};

struct CountedLoop {
  std::uint16_t prep = 0, loop = 0;  // the FORPREP and the FORLOOP
  std::uint8_t base = 0;             // counter; base + 1 the limit, + 2 the step, + 3 the variable
  RegisterSet index;                 // the variable and its copies made at the body's start
  std::vector<std::uint8_t> arrays;  // the array registers the body indexes by them, sorted
  std::vector<IndexedAccess> accesses;

  bool in_body(std::size_t k) const { return k > prep && k <= loop; }
};

// The loops of the page (from its instruction starts) with at least one such access, in page order.
std::vector<CountedLoop> counted_loops(std::span<const std::uint32_t> page, const PageShape& shape);

}  // namespace kiln::jit
