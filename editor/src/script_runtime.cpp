#include "script_runtime.h"

#include <cstdio>

namespace kiln::cli {

std::unique_ptr<jit::PluginPageCompiler> open_page_compiler(cache::BlobStore* store, const std::string& who) {
  auto made = jit::PluginPageCompiler::create({.store = store, .warn = [who](const std::string& message) {
                                                 std::fprintf(stderr, "%s: %s\n", who.c_str(), message.c_str());
                                               }});
  if (made) return std::move(*made);
  std::fprintf(stderr, "%s: script pages not compiled: %s\n", who.c_str(), made.error().message.c_str());
  return nullptr;
}

Result<std::unique_ptr<jit::JitRuntime>> open_jit_runtime(jit::JitOptions options, const std::string& who) {
  auto made = jit::JitRuntime::create(options);
  if (made || !options.store) return made;
  std::fprintf(stderr, "%s: page cache off: %s\n", who.c_str(), made.error().message.c_str());
  options.store = nullptr;
  return jit::JitRuntime::create(options);
}

}  // namespace kiln::cli
