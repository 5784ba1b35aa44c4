#pragma once
// The Redis backend of the remote level (hiredis, blocking calls with a timeout). Entries are
// plain string values under their keys; the server's own policy (maxmemory, eviction) bounds them.

#include <memory>

#include "kiln/cache/remote_storage.h"
#include "remote_url.h"

namespace kiln::cache {

std::unique_ptr<RemoteStorage> make_redis_storage(RemoteUrl url, int db, std::chrono::milliseconds timeout);

}  // namespace kiln::cache
