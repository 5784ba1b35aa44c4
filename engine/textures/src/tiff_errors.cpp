#include "tiff_errors.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "tiff_library.h"

namespace kiln::textures {
namespace {

thread_local std::string t_tiff_error;

void on_tiff_error(const char* module, const char* fmt, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  if (t_tiff_error.empty()) t_tiff_error = std::string(module ? module : "libtiff") + ": " + buf;
}
void on_tiff_warning(const char*, const char*, va_list) {}

}  // namespace

Status begin_tiff_call() {
  auto library = tiff_library();
  if (!library) return library.error();
  static std::once_flag once;
  std::call_once(once, [&] {
    (*library)->set_error_handler(on_tiff_error);
    (*library)->set_warning_handler(on_tiff_warning);
  });
  t_tiff_error.clear();
  return {};
}

const std::string& tiff_error() { return t_tiff_error; }

}  // namespace kiln::textures
