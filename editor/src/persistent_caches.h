#pragma once
// The persistent caches as every `kiln` command opens them from the configuration. They are an
// optimisation: when one cannot be opened, `who` says so on stderr (one line naming the directory
// and the problem) and the work is done without it.

#include <memory>
#include <string>

#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"
#include "kiln/shadercache/isolated_compiler.h"

namespace kiln::cli {

// The cache store at cache.root with its caps and cache.remote behind it; nullptr (said on stderr)
// when it cannot be opened. `fill_remote`: local hits are sent to the remote when it lacks them.
std::unique_ptr<cache::BlobStore> open_cache_store(const Config& config, const std::string& who,
                                                   bool fill_remote = false);

// The store for shader variants: nullptr when shaders.disk_cache is off or it cannot be opened.
std::unique_ptr<cache::BlobStore> open_variant_store(const Config& config, const std::string& who);

// How the tools run glslang: in kiln-shader-worker processes beside this program, limited by
// shaders.compile_memory_max and shaders.compile_timeout, unless shaders.compile_workers is off.
shadercache::CompileIsolation compile_isolation(const Config& config);

}  // namespace kiln::cli
