#include "script_runtime.h"

#include <cstdio>

#include "kiln/jit/isolated_page_compiler.h"

namespace kiln::cli {

std::unique_ptr<jit::PluginPageCompiler> open_page_compiler(cache::BlobStore* store, const std::string& who) {
  auto made = jit::PluginPageCompiler::create({.store = store, .warn = [who](const std::string& message) {
                                                 std::fprintf(stderr, "%s: %s\n", who.c_str(), message.c_str());
                                               }});
  if (made) return std::move(*made);
  std::fprintf(stderr, "%s: script pages not compiled: %s\n", who.c_str(), made.error().message.c_str());
  return nullptr;
}

Result<ShippingCompiler> open_cook_compiler(const Config& config, cache::BlobStore* store) {
  if (config.jit_compile_workers) {
    auto made = jit::IsolatedPageCompiler::create({.store = store});
    if (!made) return made.error();
    jit::IsolatedPageCompiler* isolated = made->get();
    return ShippingCompiler{std::move(*made), [isolated] { return isolated->failure(); },
                            [isolated] { isolated->stop_workers(); }};
  }
  auto made = jit::PluginPageCompiler::create({.store = store});
  if (!made) return made.error();
  jit::PluginPageCompiler* plugin = made->get();
  // LLVM, once loaded, stays in the process (see PluginPageCompiler's destructor).
  return ShippingCompiler{std::move(*made), [plugin] { return plugin->load_error(); }, [] {}};
}

Result<std::unique_ptr<jit::JitRuntime>> open_jit_runtime(jit::JitOptions options, const std::string& who) {
  auto made = jit::JitRuntime::create(options);
  if (made || !options.store) return made;
  std::fprintf(stderr, "%s: page cache off: %s\n", who.c_str(), made.error().message.c_str());
  options.store = nullptr;
  return jit::JitRuntime::create(options);
}

}  // namespace kiln::cli
