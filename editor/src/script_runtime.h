#pragma once
// The script compiler and runtime as every `kiln` command opens them from the configuration. The
// page cache is an optimisation: when it cannot be opened, `who` says so on stderr and scripts run
// without it.

#include <functional>
#include <memory>
#include <string>

#include "kiln/core/config.h"
#include "kiln/jit/compiler_plugin.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::cli {

// The script page compiler (LLVM, loaded when a page must first be compiled), its fingerprint kept
// in `store` (jit_store(); none: asked of the plugin); nullptr, said on stderr, when it is not
// available (scripts then run interpreted). A plugin that fails to load later says so once.
std::unique_ptr<jit::PluginPageCompiler> open_page_compiler(cache::BlobStore* store, const std::string& who);

// The compiler of a tool that ships pages rather than runs them (the cook): in kiln-page-worker
// processes (jit.compile_workers), else loaded here as open_page_compiler's. `failure()` is why a
// page could not be compiled for a reason not the page's own (empty: none).
struct ShippingCompiler {
  std::unique_ptr<jit::PageCompiler> compiler;
  std::function<std::string()> failure;
  std::function<void()> release;  // gives back what compiling held (the page workers); compiles may follow
};
Result<ShippingCompiler> open_cook_compiler(const Config& config, cache::BlobStore* store);

// A script runtime with `options`; when its page cache (options.store) cannot be used, one
// without it. Fails only for what a runtime without a cache fails for.
Result<std::unique_ptr<jit::JitRuntime>> open_jit_runtime(jit::JitOptions options, const std::string& who);

}  // namespace kiln::cli
