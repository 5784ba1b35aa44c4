#include "persistent_caches.h"

#include <cstdio>

namespace kiln::cli {

std::unique_ptr<cache::BlobStore> open_cache_store(const Config& config, const std::string& who, bool fill_remote) {
  cache::BlobStoreOptions options{
      .root = config.cache_root, .max_bytes = config.cache_disk_max_bytes, .keep_namespaces = config.cache_keep_builds};
  // A kind the store cannot open, and a remote's first failure: one line each, naming who.
  options.warn = [who](const std::string& message) { std::fprintf(stderr, "%s: %s\n", who.c_str(), message.c_str()); };
  if (!config.cache_remote.empty()) {
    auto remote = cache::open_remote_storage(
        {.url = config.cache_remote, .timeout = std::chrono::milliseconds(config.cache_remote_timeout_ms)});
    if (remote) {
      options.remote = std::move(*remote);
      options.remote_read_only = config.cache_remote_read_only;
      options.remote_fill_from_local = fill_remote;
    } else {
      std::fprintf(stderr, "%s: remote cache off: %s\n", who.c_str(), remote.error().message.c_str());
    }
  }
  auto opened = cache::BlobStore::open(std::move(options));
  if (opened) return std::move(*opened);
  std::fprintf(stderr, "%s: persistent cache off: %s\n", who.c_str(), opened.error().message.c_str());
  return nullptr;
}

std::unique_ptr<cache::BlobStore> open_variant_store(const Config& config, const std::string& who) {
  if (!config.shader_disk_cache) return nullptr;
  return open_cache_store(config, who);
}

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
