#pragma once
// `kiln` and `kiln-tools` each run part of the commands and hand the rest to the other, installed
// beside them (main.cpp, tools_main.cpp): the other program replaces this process with the same
// pid, arguments, environment and descriptors, so exit codes and signals are its own.

#include <string>

namespace kiln::cli {

// Whether `kiln` runs `command` itself (script, version, info, config); every other command runs
// in `kiln-tools`. Both programs decide by this one list, so they cannot disagree.
bool runs_in_kiln(const std::string& command);

// Whether another program handed this process its command. Clears the mark from the environment
// so that the processes this one starts begin unmarked; call once, first thing in main.
bool take_hand_over_mark();

// Replaces this process with `program` (found beside it) and `argv`, marked as handed over; returns
// only when that fails, with the exit code after saying why on standard error. A process that was
// itself handed the command (`handed_in`) refuses: the two installed programs do not match, and
// handing on would loop for ever.
int hand_over(const char* program, const std::string& command, char** argv, bool handed_in);

}  // namespace kiln::cli
