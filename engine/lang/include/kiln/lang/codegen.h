#pragma once
// From a checked script to paged bytecode (kiln/jit/bytecode.h): the last step of the front end.
//
// Thread-safety: pure function of its inputs.

#include <vector>

#include "kiln/core/result.h"
#include "kiln/jit/bytecode.h"
#include "kiln/lang/checker.h"

namespace kiln::lang {

Result<jit::Program> compile_program(const CheckedScript& checked, const std::vector<HostSignature>& host);

}  // namespace kiln::lang
