#pragma once
// Which registers a page's code may still read, per instruction: what a compiled page must store
// when it hands control to the interpreter there. A register not live at an exit is never read
// before it is written again, so its value need not reach memory (and the compiled code need not
// keep it), whatever runs next. Outside the page (where control leaves it, or an instruction the
// page cannot decode) every register counts as live.
//
// Thread-safety: pure functions.

#include <bitset>
#include <cstdint>
#include <span>
#include <vector>

#include "kiln/jit/page_analysis.h"

namespace kiln::jit {

using RegisterSet = std::bitset<256>;

// live_in[k] for every instruction start k of `shape` (all registers elsewhere): the registers the
// instruction at k or anything after it may read before writing.
std::vector<RegisterSet> live_registers(std::span<const std::uint32_t> page, const PageShape& shape);

// The registers the instruction at k may write: a call its result and every register of the
// callee's frame above it, a FORPREP its counter, a FORLOOP its counter and variable, an
// instruction not known here every register.
RegisterSet written_registers(std::span<const std::uint32_t> page, std::size_t k);

}  // namespace kiln::jit
