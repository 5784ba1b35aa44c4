#pragma once
// The LLVM page compiler as the tools use it: a plugin (kiln-jitc.so, beside the program or in
// <prefix>/lib/kiln) loaded the first time a page must actually be compiled, so that a process
// whose pages all come from the page cache never maps LLVM (start-up stays free of its ~17 ms).
//
// The cache keys need the compiler's fingerprint (LLVM version, settings, host CPU) before any
// compile. It is kept in the cache store (src/kept_fingerprint.h); the plugin is asked only when
// that entry is missing or fails the store's checks.
//
// Thread-safety: compile() from any thread (the plugin is loaded once); fingerprint() is fixed at
// creation.

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "kiln/cache/blob_store.h"
#include "kiln/core/result.h"
#include "kiln/jit/page_compiler.h"

namespace kiln::jit {

class KeptFingerprint;

struct CompilerPluginOptions {
  int opt_level = 2;
  bool frem_libcall = false;          // fault injection for tests (see LlvmCompilerOptions)
  std::filesystem::path plugin;       // empty: default_compiler_plugin()
  cache::BlobStore* store = nullptr;  // where fingerprints are kept; none: always ask the plugin
  // Said once when the plugin cannot be loaded (pages then stay interpreted); none: silent.
  std::function<void(const std::string&)> warn;
};

class PluginPageCompiler final : public PageCompiler {
 public:
  // Fails when the fingerprint is neither kept nor obtainable (no plugin, or it does not load).
  static Result<std::unique_ptr<PluginPageCompiler>> create(CompilerPluginOptions options);
  ~PluginPageCompiler() override;
  // Loads the plugin on the first call. A plugin whose fingerprint differs from the kept one (an
  // LLVM update) compiles nothing in this process, whose keys already name the kept one; the
  // right fingerprint is kept for the next.
  Result<CompiledPage> compile(const PageRequest& request) override;
  std::string fingerprint() const override { return fingerprint_; }
  // Whether the plugin (and so LLVM) is in this process.
  bool loaded() const;
  // Why the plugin could not be loaded when it was needed; empty if it was not needed or it loaded.
  std::string load_error() const;

 private:
  explicit PluginPageCompiler(CompilerPluginOptions options);
  Result<PageCompiler*> load();

  CompilerPluginOptions options_;
  std::unique_ptr<KeptFingerprint> kept_;
  std::string fingerprint_;  // set by create(), fixed after
  mutable std::mutex mu_;    // guards the loading below
  std::unique_ptr<PageCompiler> compiler_;
  std::string load_error_;
};

// kiln-jitc.so beside the running program, else <program dir>/../lib/kiln/kiln-jitc.so; empty
// when neither exists.
std::filesystem::path default_compiler_plugin();

// The plugin's entry point (C linkage, so dlsym finds it by name): a new compiler with these
// settings, or null when the plugin was built from another tree than `build_id` (jit_build_id():
// the classes handed across must be the same). The caller owns it.
using CreateCompilerFunction = PageCompiler* (*)(const char* build_id, int opt_level, int frem_libcall);
inline constexpr const char* kCreateCompilerSymbol = "kiln_jitc_create_compiler_v2";

}  // namespace kiln::jit
