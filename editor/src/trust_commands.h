#pragma once
// `kiln key generate FILE [--remote]`: an Ed25519 key pair for signing cooked sets (FILE, mode
// 0600, and FILE.pub), or a farm's remote cache key (32 random bytes, mode 0600).
// `kiln set verify DIR [--trust KEY.pub]...`: a cooked set's signature, its packs' SHA-256 and
// every entry, checked; prints who signed it.

#include "cli_args.h"
#include "kiln/core/config.h"

namespace kiln::cli {

int run_key_command(const Args& args, const LoadedConfig& config);
int run_set_command(const Args& args, const LoadedConfig& config);

}  // namespace kiln::cli
