#include "curl_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace kiln::cache {
namespace {

// The soname of libcurl's ABI since 7.16 (the one the headers describe).
constexpr const char* kCurlSoname = "libcurl.so.4";

Result<const CurlLibrary*> load() {
  // Never closed: handles and callbacks into it live as long as the process.
  void* handle = ::dlopen(kCurlSoname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return make_error(std::string("cannot load libcurl for the HTTP remote: ") + ::dlerror());
  static CurlLibrary library;
  std::string missing;
  auto bind = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(::dlsym(handle, name));
    if (!function) missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  CURLcode (*global_init)(long) = nullptr;
  bind(global_init, "curl_global_init");
  bind(library.easy_init, "curl_easy_init");
  bind(library.easy_cleanup, "curl_easy_cleanup");
  bind(library.easy_reset, "curl_easy_reset");
  bind(library.easy_setopt, "curl_easy_setopt");
  bind(library.easy_perform, "curl_easy_perform");
  bind(library.easy_getinfo, "curl_easy_getinfo");
  bind(library.easy_strerror, "curl_easy_strerror");
  if (!missing.empty()) return make_error(std::string(kCurlSoname) + " lacks " + missing);
  if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return make_error("libcurl cannot initialise");
  return &library;
}

}  // namespace

Result<const CurlLibrary*> curl_library() {
  static const Result<const CurlLibrary*> loaded = load();
  return loaded;
}

}  // namespace kiln::cache
