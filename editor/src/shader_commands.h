#pragma once
// `kiln shader compile|reflect <file>` and `kiln probe variants`.

#include "cli_args.h"

namespace kiln::cli {

int run_shader_command(const Args& args, const LoadedConfig& config);
int run_probe_command(const Args& args);

}  // namespace kiln::cli
