#pragma once
// Files that ship with a Kiln program: the helpers and plugins the tools find beside themselves
// (kiln-shader-worker, kiln-jitc.so, kiln-teximport.so), whether run from a build tree or installed.
//
// Thread-safety: free functions of no state.

#include <filesystem>
#include <string_view>

namespace kiln {

// The directory of the running executable (from /proc/self/exe); empty when it cannot be read.
std::filesystem::path program_directory();

// `name` beside the running program, else in <program dir>/../lib/kiln (an installed tree); empty
// when neither is readable (or, with `executable`, runnable).
std::filesystem::path find_program_file(std::string_view name, bool executable = false);

}  // namespace kiln
