#pragma once
// `kiln` and `kiln-tools` each run part of the commands and hand the rest to the other, installed
// beside them (main.cpp, tools_main.cpp): the other program replaces this process with the same
// pid, arguments, environment and descriptors, so exit codes and signals are its own.

#include <string>

namespace kiln::cli {

// Replaces this process with `program` (found beside it) and `argv`; returns only when that fails,
// with the exit code after saying why on standard error.
int hand_over(const char* program, const std::string& command, char** argv);

}  // namespace kiln::cli
