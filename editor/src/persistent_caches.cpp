#include "persistent_caches.h"

#include <cstdio>

#include "kiln/trust/hmac.h"

namespace kiln::cli {

std::unique_ptr<cache::BlobStore> open_cache_store(const Config& config, const std::string& who,
                                                   std::shared_ptr<cache::RemoteStorage> remote, bool fill_remote) {
  cache::BlobStoreOptions options{
      .root = config.cache_root, .max_bytes = config.cache_disk_max_bytes, .keep_namespaces = config.cache_keep_builds};
  // A kind the store cannot open, and a remote's first failure: one line each, naming who.
  options.warn = [who](const std::string& message) { std::fprintf(stderr, "%s: %s\n", who.c_str(), message.c_str()); };
  if (remote && !config.cache_remote_keys.empty()) {
    // A farm key that cannot be read turns the remote off: never an unkeyed remote instead.
    auto keys = trust::read_hmac_keys(config.cache_remote_keys);
    if (keys) {
      options.remote_keys = std::move(*keys);
    } else {
      std::fprintf(stderr, "%s: remote cache off: %s\n", who.c_str(), keys.error().message.c_str());
      remote = nullptr;
    }
  }
  if (remote) {
    options.remote = std::move(remote);
    options.remote_read_only = config.cache_remote_read_only;
    options.remote_fill_from_local = fill_remote;
  }
  auto opened = cache::BlobStore::open(std::move(options));
  if (opened) return std::move(*opened);
  std::fprintf(stderr, "%s: persistent cache off: %s\n", who.c_str(), opened.error().message.c_str());
  return nullptr;
}

}  // namespace kiln::cli
