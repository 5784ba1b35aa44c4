#pragma once
// Parsing a script of Kiln's Lua subset into its syntax tree. Lua constructs outside the subset
// (nil, varargs, goto, generic for, computed keys, method definitions, multiple returns) are
// rejected here by name, with `file:line:col: message`.

#include <string>
#include <string_view>

#include "kiln/core/result.h"
#include "kiln/lang/ast.h"

namespace kiln::lang {

Result<Script> parse_script(const std::string& file, std::string_view source);

}  // namespace kiln::lang
