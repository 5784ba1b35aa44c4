#include "kiln/jit/compiler_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include "kiln/cache/hash.h"
#include "kiln/cache/private_files.h"
#include "kiln/core/input_limits.h"
#include "kiln/jit/host_features.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::jit {
namespace fs = std::filesystem;
namespace {

fs::path fingerprint_file(const CompilerPluginOptions& o) {
  if (o.cache_root.empty()) return {};
  const std::string identity = host_cpu_signature() + "\n" + jit_build_id() + "\nO" + std::to_string(o.opt_level) +
                               (o.frem_libcall ? "\nfrem-libcall" : "");
  // Beside the cache kinds, not inside one: a kind's subdirectories are its namespaces.
  return o.cache_root / "jit-fingerprints" / cache::xxh3_128(identity).hex();
}

}  // namespace

fs::path default_compiler_plugin() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const fs::path& candidate :
       {self.parent_path() / "kiln-jitc.so", self.parent_path().parent_path() / "lib" / "kiln" / "kiln-jitc.so"})
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
  return {};
}

Result<std::unique_ptr<PluginPageCompiler>> PluginPageCompiler::create(CompilerPluginOptions options) {
  if (options.plugin.empty()) options.plugin = default_compiler_plugin();
  std::unique_ptr<PluginPageCompiler> self(new PluginPageCompiler(std::move(options)));
  const fs::path kept = fingerprint_file(self->options_);
  if (!kept.empty()) {
    auto text = read_input_file(kept, 4096, "compiler fingerprint");
    // A kept fingerprint naming features this CPU lacks is not this host's (a copied cache): asked again.
    if (text && !text->empty() && text->find('\n') == std::string::npos && missing_cpu_features(*text).empty()) {
      self->fingerprint_ = *text;
      return self;
    }
  }
  auto compiler = self->load();
  if (!compiler) return compiler.error();
  self->fingerprint_ = (*compiler)->fingerprint();
  if (!kept.empty()) {
    // Kept for the next process; a failure only means the next one asks the plugin again.
    if (cache::make_private_dirs(kept.parent_path()))
      (void)cache::write_file_atomic(kept,
                                     std::as_bytes(std::span(self->fingerprint_.data(), self->fingerprint_.size())));
  }
  return self;
}

PluginPageCompiler::~PluginPageCompiler() {
  compiler_.reset();
  // The library stays mapped: code it made may still be referenced (nothing from it is, but
  // unloading LLVM at exit gains nothing).
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
    return make_error(load_error_);
  };
  if (options_.plugin.empty()) return fail("the script compiler (kiln-jitc.so) is not installed beside this program");
  handle_ = ::dlopen(options_.plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) return fail(options_.plugin.string() + ": cannot load the script compiler: " + ::dlerror());
  auto create = reinterpret_cast<CreateCompilerFunction>(::dlsym(handle_, kCreateCompilerSymbol));
  if (!create)
    return fail(options_.plugin.string() + ": not Kiln's script compiler (no " + kCreateCompilerSymbol + ")");
  compiler_.reset(create(options_.opt_level, options_.frem_libcall ? 1 : 0));
  if (!compiler_) return fail(options_.plugin.string() + ": the script compiler did not start");
  return compiler_.get();
}

Result<CompiledPage> PluginPageCompiler::compile(const PageRequest& request) {
  auto compiler = load();
  if (!compiler) return compiler.error();
  return (*compiler)->compile(request);
}

}  // namespace kiln::jit
