#pragma once
// `kiln texture info <file.tx> [--json]`.

#include "cli_args.h"

namespace kiln::cli {

int run_texture_command(const Args& args);

}  // namespace kiln::cli
