#pragma once
// The persistent variant store as every `kiln` command opens it from the configuration. It is an
// optimisation: when it cannot be opened, `who` says so on stderr and variants compile without it.

#include <memory>
#include <string>

#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"

namespace kiln::cli {

// nullptr when shaders.disk_cache is off or the store cannot be opened.
std::unique_ptr<cache::BlobStore> open_variant_store(const Config& config, const std::string& who);

}  // namespace kiln::cli
