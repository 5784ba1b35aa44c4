// The remote level of the tools' cache store (cache.remote): Redis or HTTP, whose clients only
// the tools plugin links.

#include <cstdio>

#include "persistent_caches.h"

namespace kiln::cli {

std::shared_ptr<cache::RemoteStorage> open_remote_level(const Config& config, const std::string& who) {
  if (config.cache_remote.empty()) return nullptr;
  auto remote = cache::open_remote_storage(
      {.url = config.cache_remote, .timeout = std::chrono::milliseconds(config.cache_remote_timeout_ms)});
  if (remote) return std::move(*remote);
  std::fprintf(stderr, "%s: remote cache off: %s\n", who.c_str(), remote.error().message.c_str());
  return nullptr;
}

}  // namespace kiln::cli
