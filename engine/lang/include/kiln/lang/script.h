#pragma once
// The front end in one call: source -> syntax tree -> checked -> paged bytecode.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/jit/bytecode.h"
#include "kiln/lang/checker.h"
#include "kiln/lang/codegen.h"
#include "kiln/lang/parser.h"

namespace kiln::lang {

// Errors are `file:line:col: message` (lexer, parser, checker).
Result<jit::Program> compile_script(const std::string& file, std::string_view source,
                                    const std::vector<HostSignature>& host = {});
Result<jit::Program> compile_script_file(const std::string& file, const std::vector<HostSignature>& host = {});

}  // namespace kiln::lang
