#include "kiln/core/runtime_library.h"

#include <dlfcn.h>

namespace kiln {

Result<RuntimeLibrary> RuntimeLibrary::open(const char* soname, const std::string& purpose) {
  // Never closed: see the header.
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return make_error("cannot load " + purpose + ": " + ::dlerror());
  return RuntimeLibrary(handle, soname);
}

void* RuntimeLibrary::symbol(const char* name) {
  void* found = ::dlsym(handle_, name);
  if (!found) missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
  return found;
}

Status RuntimeLibrary::complete() const {
  if (missing_.empty()) return {};
  return make_error(std::string(soname_) + " lacks " + missing_);
}

}  // namespace kiln
