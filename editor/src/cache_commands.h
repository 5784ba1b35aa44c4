#pragma once
// `kiln cache stats|verify|prune|clear`: the persistent caches under cache.root, every kind.

#include "cli_args.h"

namespace kiln::cli {

int run_cache_command(const Args& args, const LoadedConfig& config);

}  // namespace kiln::cli
