#pragma once
// The persistent variant store as every `kiln` command opens it from the configuration. It is an
// optimisation: when it cannot be opened, `who` says so on stderr and variants compile without it.

#include <memory>
#include <string>

#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"
#include "kiln/shadercache/isolated_compiler.h"

namespace kiln::cli {

// nullptr when shaders.disk_cache is off or the store cannot be opened.
std::unique_ptr<cache::BlobStore> open_variant_store(const Config& config, const std::string& who);

// How the tools run glslang: in kiln-shader-worker processes beside this program, limited by
// shaders.compile_memory_max and shaders.compile_timeout, unless shaders.compile_workers is off.
shadercache::CompileIsolation compile_isolation(const Config& config);

}  // namespace kiln::cli
