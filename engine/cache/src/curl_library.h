#pragma once
// libcurl, loaded when the first HTTP remote is opened. Linked in, it would be loaded with its two
// dozen libraries (TLS, Kerberos, LDAP, SSH, ...) by every Kiln process, and their symbol binding
// costs several milliseconds of start-up, though most processes never speak HTTP.
//
// Thread-safety: curl_library() may be called from any thread; it loads once and the table it
// returns never changes. curl_global_init has run before the table is returned.

#include <curl/curl.h>

#include "kiln/core/result.h"

namespace kiln::cache {

struct CurlLibrary {
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  void (*easy_reset)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
};

// The loaded library, or why it could not be loaded (not installed, a function missing).
Result<const CurlLibrary*> curl_library();

}  // namespace kiln::cache
