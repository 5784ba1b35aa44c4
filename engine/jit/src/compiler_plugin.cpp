#include "kiln/jit/compiler_plugin.h"

#include "kept_fingerprint.h"
#include "kiln/core/program_files.h"
#include "kiln/core/runtime_library.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::jit {
namespace fs = std::filesystem;

fs::path default_compiler_plugin() { return find_program_file("kiln-jitc.so"); }

PluginPageCompiler::PluginPageCompiler(CompilerPluginOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<PluginPageCompiler>> PluginPageCompiler::create(CompilerPluginOptions options) {
  if (options.plugin.empty()) options.plugin = default_compiler_plugin();
  std::unique_ptr<PluginPageCompiler> self(new PluginPageCompiler(std::move(options)));
  self->kept_ =
      std::make_unique<KeptFingerprint>(self->options_.store, self->options_.opt_level, self->options_.frem_libcall);
  if (auto kept = self->kept_->read()) {
    self->fingerprint_ = std::move(*kept);
    return self;
  }
  auto compiler = self->load();
  if (!compiler) return compiler.error();
  return self;
}

PluginPageCompiler::~PluginPageCompiler() {
  // The library stays mapped: the compile threads' thread-local LLVM objects are destroyed by code
  // in it when those threads end.
  compiler_.reset();
}

bool PluginPageCompiler::loaded() const {
  std::lock_guard lock(mu_);
  return compiler_ != nullptr;
}

Result<PageCompiler*> PluginPageCompiler::load() {
  std::lock_guard lock(mu_);
  if (compiler_) return compiler_.get();
  if (!load_error_.empty()) return make_error(load_error_);
  auto fail = [&](std::string why) -> Result<PageCompiler*> {
    load_error_ = std::move(why);
    if (options_.warn) options_.warn(load_error_ + "; scripts run interpreted");
    return make_error(load_error_);
  };
  auto plugin = Plugin::open(options_.plugin, "kiln-jitc.so", "script compiler");
  if (!plugin) return fail(plugin.error().message);
  auto entry = plugin->entry(kCreateCompilerSymbol);
  if (!entry) return fail(entry.error().message);
  auto create = reinterpret_cast<CreateCompilerFunction>(*entry);
  std::unique_ptr<PageCompiler> made(create(jit_build_id(), options_.opt_level, options_.frem_libcall ? 1 : 0));
  if (!made) return fail(options_.plugin.string() + ": a script compiler built from another Kiln than this program");
  const std::string actual = made->fingerprint();
  if (actual != fingerprint_) kept_->keep(actual);  // for the next process
  if (fingerprint_.empty()) {
    fingerprint_ = actual;  // from create(): nothing was kept
  } else if (actual != fingerprint_) {
    return fail(
        "the script compiler's fingerprint changed since it was kept (an LLVM update?): pages are "
        "compiled again from the next run");
  }
  compiler_ = std::move(made);
  return compiler_.get();
}

std::string PluginPageCompiler::load_error() const {
  std::lock_guard lock(mu_);
  return load_error_;
}

Result<CompiledPage> PluginPageCompiler::compile(const PageRequest& request) {
  auto compiler = load();
  if (!compiler) return compiler.error();
  return (*compiler)->compile(request);
}

}  // namespace kiln::jit
