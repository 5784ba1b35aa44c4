#include "variant_store.h"

#include <cstdio>

namespace kiln::cli {

std::unique_ptr<cache::BlobStore> open_variant_store(const Config& config, const std::string& who) {
  if (!config.shader_disk_cache) return nullptr;
  auto opened = cache::BlobStore::open(
      {.root = config.cache_root, .max_bytes = config.cache_disk_max_bytes, .keep_namespaces = config.cache_keep_builds});
  if (opened) return std::move(*opened);
  std::fprintf(stderr, "%s: persistent variant cache off: %s\n", who.c_str(), opened.error().message.c_str());
  return nullptr;
}

}  // namespace kiln::cli
