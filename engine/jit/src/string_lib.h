#pragma once
// The string functions the STR instruction runs (StringFn), with Lua 5.1's results. Private to
// engine/jit.
//
// Thread-safety: as the Heap's: the thread running the Vm.

#include <cstdint>
#include <optional>
#include <string_view>

#include "heap.h"
#include "kiln/core/result.h"
#include "kiln/jit/types.h"

namespace kiln::jit {

// The arguments of one STR instruction: `count` registers from `args`, their kinds two bits each.
struct StringArgs {
  const Value* args;
  unsigned count;
  std::uint32_t kinds;
};

// Runs `fn`: its result is a number or a string made on `heap` (never longer than `max_bytes`).
// The error, for arguments Lua would refuse, says what Lua says ("bad argument #2 to 'char'
// (invalid value)"), without the place, which the interpreter adds.
Result<Value> call_string_function(Heap& heap, StringFn fn, const StringArgs& in, std::uint64_t max_bytes);

// A number as print and `..` write it (%.14g) into `out` (kNumberTextBytes at least); its length.
// Whole numbers of magnitude below kPlainWhole are written as their digits, without snprintf.
inline constexpr std::size_t kNumberTextBytes = 32;
inline constexpr double kPlainWhole = 1e14;
std::size_t number_text(double v, char* out);

// Lua 5.1's conversion of a string to a number (tonumber, and the coercions it stands for):
// decimal or hexadecimal (0x), surrounding spaces allowed; nothing when it is not a number.
std::optional<double> string_to_number(std::string_view s);

}  // namespace kiln::jit
