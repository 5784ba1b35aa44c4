#pragma once
// The `kiln` command line, parsed with CLI11: every command and subcommand with its own options,
// `-h/--help` on each (with an example), `--version`, and the settings flags (`--cache-root`,
// `--jobs`, ... from the configuration table) and `--config` accepted before or after the command.
// Unknown flags, missing or extra operands and malformed numbers are usage errors naming the flag.
// The result is the `Args` every command runs on.

#include <optional>

#include "cli_args.h"

namespace kiln::cli {

struct ParsedCommandLine {
  std::optional<Args> args;  // the command to run; nothing when parsing already decided the exit
  int exit_code = kExitOk;   // when `args` is empty: 0 after --help or --version, 2 on a usage error
};

ParsedCommandLine parse_command_line(int argc, char** argv);

// "kiln 0.1.0 (Release)".
std::string version_line();

}  // namespace kiln::cli
