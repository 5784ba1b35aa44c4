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

namespace kiln::cli {

shadercache::CompileIsolation compile_isolation(const Config& config) {
  shadercache::CompileIsolation isolation;
  if (!config.shader_compile_workers) return isolation;
  isolation.mode = shadercache::CompileIsolation::Mode::kProcess;
  isolation.worker = shadercache::default_compile_worker();
  isolation.memory_limit_bytes = config.shader_compile_memory_max_bytes;
  isolation.timeout = std::chrono::seconds(config.shader_compile_timeout_s);
  return isolation;
}

}  // namespace kiln::cli
