#pragma once
// The engine functions a project's scripts may call (kiln/runtime/script_api.h), for the tools:
// declared to the compiler, and bound to no-ops where a tool runs a script without a renderer.

#include <filesystem>
#include <span>
#include <vector>

#include "kiln/jit/bytecode.h"
#include "kiln/jit/types.h"
#include "kiln/jit/vm.h"
#include "kiln/runtime/script_api.h"

namespace kiln::cli {

// The parameter functions of the project at `root`: its materials' authored parameters. A material
// that does not load is left out (the cook and the editor report it on their own).
std::vector<runtime::ParameterFunction> project_parameter_functions(const std::filesystem::path& root);

// The project a script belongs to: the nearest directory above it that has a materials/ directory;
// empty when there is none.
std::filesystem::path project_of_script(const std::filesystem::path& script);

// Every engine function `program` calls, bound to do nothing (a tool running a script alone).
void bind_without_renderer(jit::Vm& vm, const jit::Program& program);

}  // namespace kiln::cli
