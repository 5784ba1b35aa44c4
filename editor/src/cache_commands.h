#pragma once
// `kiln cache prune|verify`: maintenance of the persistent caches under cache.root.

#include "cli_args.h"

namespace kiln::cli {

int run_cache_command(const Args& args, const LoadedConfig& config);

}  // namespace kiln::cli
