#pragma once
// The patterns of string.format, read by Lua 5.1's rules: the checker validates a literal pattern
// against its arguments with it, the interpreter formats with it.
//
// Thread-safety: pure functions.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/core/result.h"

namespace kiln::jit {

// One conversion: its printf spec ("%-5.2f") and its letter.
struct FormatConversion {
  std::string spec;
  char letter = 0;
};

// Reads `format` from `at`: literal text (and "%%") up to the next conversion goes to `text`, then
// the conversion is returned and `at` moved past it; nothing at the end of the pattern. Flags
// "-+ #0" at most once each, width and precision two digits at most, letters d i u c o x X e E f
// g G q s. The error names the problem ("invalid option '%y'").
Result<std::optional<FormatConversion>> next_conversion(std::string_view format, std::size_t& at, std::string& text);

// Whether conversion `letter` takes a number (else a string: s and q, which also take numbers).
inline bool takes_number(char letter) { return letter != 's' && letter != 'q'; }

}  // namespace kiln::jit
