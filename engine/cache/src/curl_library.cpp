#include "curl_library.h"

#include "kiln/core/runtime_library.h"

namespace kiln::cache {
namespace {

// The soname of libcurl's ABI since 7.16 (the one the headers describe).
constexpr const char* kCurlSoname = "libcurl.so.4";

Result<const CurlLibrary*> load() {
  auto library = RuntimeLibrary::open(kCurlSoname, "libcurl for the HTTP remote");
  if (!library) return library.error();
  static CurlLibrary curl;
  CURLcode (*global_init)(long) = nullptr;
  library->bind(global_init, "curl_global_init");
  library->bind(curl.easy_init, "curl_easy_init");
  library->bind(curl.easy_cleanup, "curl_easy_cleanup");
  library->bind(curl.easy_reset, "curl_easy_reset");
  library->bind(curl.easy_setopt, "curl_easy_setopt");
  library->bind(curl.easy_perform, "curl_easy_perform");
  library->bind(curl.easy_getinfo, "curl_easy_getinfo");
  library->bind(curl.easy_strerror, "curl_easy_strerror");
  if (Status complete = library->complete(); !complete) return complete.error();
  if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return make_error("libcurl cannot initialise");
  return &curl;
}

}  // namespace

Result<const CurlLibrary*> curl_library() {
  static const Result<const CurlLibrary*> loaded = load();
  return loaded;
}

}  // namespace kiln::cache
