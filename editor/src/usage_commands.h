#pragma once
// `kiln usage show FILE [--json]`: what a usage record holds.
// `kiln usage merge A B ... -o C [--json]`: the union of records from many runs and machines.

#include "cli_args.h"

namespace kiln::cli {

int run_usage_command(const Args& args);

}  // namespace kiln::cli
