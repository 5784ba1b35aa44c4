#include "kiln/cache/remote_storage.h"

#include <charconv>

#include "http_storage.h"
#include "kiln/core/text.h"
#include "redis_storage.h"
#include "remote_url.h"

namespace kiln::cache {

Result<std::unique_ptr<RemoteStorage>> open_remote_storage(const RemoteOptions& options) {
  if (options.timeout.count() <= 0) return make_error("cache.remote_timeout: must be more than 0 ms");
  const std::string_view url = options.url;
  if (url.rfind("redis://", 0) == 0) {
    auto parsed = parse_remote_url(url, 6379);
    if (!parsed) return parsed.error();
    int db = 0;
    if (!parsed->path.empty()) {
      const auto [end, ec] = std::from_chars(parsed->path.data(), parsed->path.data() + parsed->path.size(), db);
      if (ec != std::errc() || end != parsed->path.data() + parsed->path.size() || db < 0)
        return make_error("cache.remote '" + without_credentials(options.url) +
                          "': the path must be a database number (redis://host/0)");
    }
    return make_redis_storage(std::move(*parsed), db, options.timeout);
  }
  if (url.rfind("http://", 0) == 0) {
    auto parsed = parse_remote_url(url, 80);
    if (!parsed) return parsed.error();
    return make_http_storage(std::move(*parsed), options.timeout);
  }
  return make_error("cache.remote '" + without_credentials(options.url) +
                    "': expected redis://host[:port][/db] or http://host[:port][/path]");
}

}  // namespace kiln::cache
