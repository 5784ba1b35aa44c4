#pragma once
// The HTTP backend of the remote level (libcurl, loaded on first use): GET, PUT and DELETE of <prefix>/<key>, the
// protocol of ccache's http storage. 200 is a hit, 404 a miss; a PUT answered 2xx is stored.

#include <memory>

#include "kiln/cache/remote_storage.h"
#include "remote_url.h"

namespace kiln::cache {

// Fails when libcurl cannot be loaded (it is loaded on the first call).
Result<std::unique_ptr<RemoteStorage>> make_http_storage(RemoteUrl url, std::chrono::milliseconds timeout);

}  // namespace kiln::cache
