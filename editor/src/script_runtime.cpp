#include "script_runtime.h"

#include <cstdio>

namespace kiln::cli {

std::unique_ptr<jit::PluginPageCompiler> open_page_compiler(const Config& config, const std::string& who) {
  auto made =
      jit::PluginPageCompiler::create({.cache_root = jit_cache_root(config), .warn = [who](const std::string& message) {
                                         std::fprintf(stderr, "%s: %s\n", who.c_str(), message.c_str());
                                       }});
  if (made) return std::move(*made);
  std::fprintf(stderr, "%s: script pages not compiled: %s\n", who.c_str(), made.error().message.c_str());
  return nullptr;
}

Result<std::unique_ptr<jit::JitRuntime>> open_jit_runtime(jit::JitOptions options, const std::string& who) {
  auto made = jit::JitRuntime::create(options);
  if (made || options.cache_root.empty()) return made;
  std::fprintf(stderr, "%s: page cache off: %s\n", who.c_str(), made.error().message.c_str());
  options.cache_root.clear();
  return jit::JitRuntime::create(options);
}

}  // namespace kiln::cli
