#pragma once
// `kiln script run|disasm <file.lua>`.

#include "cli_args.h"

namespace kiln::cli {

int run_script_command(const Args& args);

}  // namespace kiln::cli
