#pragma once
// The script compiler and runtime as every `kiln` command opens them from the configuration. The
// page cache is an optimisation: when it cannot be opened, `who` says so on stderr and scripts run
// without it.

#include <memory>
#include <string>

#include "kiln/core/config.h"
#include "kiln/jit/compiler_plugin.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::cli {

// The script page compiler (LLVM, loaded when a page must first be compiled); nullptr, said on
// stderr, when it is not available (scripts then run interpreted). A plugin that fails to load
// later says so once on stderr.
std::unique_ptr<jit::PluginPageCompiler> open_page_compiler(const Config& config, const std::string& who);

// A script runtime with `options`; when its page cache (options.cache_root) cannot be opened, one
// without it. Fails only for what a runtime without a cache fails for.
Result<std::unique_ptr<jit::JitRuntime>> open_jit_runtime(jit::JitOptions options, const std::string& who);

}  // namespace kiln::cli
