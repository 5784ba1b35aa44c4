#include "kiln/jit/compiler_plugin.h"

#include <sys/stat.h>
#include <unistd.h>

#include <dlfcn.h>

#include "kiln/cache/hash.h"
#include "kiln/cache/private_files.h"
#include "kiln/core/input_limits.h"
#include "kiln/core/program_files.h"
#include "kiln/core/runtime_library.h"
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

// The kept fingerprint decides which compiled pages a process trusts: only a file of this user,
// in a directory of this user, neither writable by others, is read (else the plugin is asked).
bool own_private_file(const fs::path& file) {
  const uid_t me = ::geteuid();
  struct stat f {
  }, d{};
  return ::lstat(file.c_str(), &f) == 0 && S_ISREG(f.st_mode) && f.st_uid == me && (f.st_mode & 022) == 0 &&
         ::lstat(file.parent_path().c_str(), &d) == 0 && S_ISDIR(d.st_mode) && d.st_uid == me && (d.st_mode & 022) == 0;
}

}  // namespace

fs::path default_compiler_plugin() { return find_program_file("kiln-jitc.so"); }

Result<std::unique_ptr<PluginPageCompiler>> PluginPageCompiler::create(CompilerPluginOptions options) {
  if (options.plugin.empty()) options.plugin = default_compiler_plugin();
  std::unique_ptr<PluginPageCompiler> self(new PluginPageCompiler(std::move(options)));
  self->kept_ = fingerprint_file(self->options_);
  if (!self->kept_.empty() && own_private_file(self->kept_)) {
    auto text = read_input_file(self->kept_, 4096, "compiler fingerprint");
    // One line, naming no feature this CPU lacks (else not this host's: a copied cache): used.
    if (text && !text->empty() && text->find('\n') == std::string::npos && missing_cpu_features(*text).empty()) {
      self->fingerprint_ = *text;
      return self;
    }
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
  if (options_.plugin.empty()) return fail("the script compiler (kiln-jitc.so) is not installed beside this program");
  if (Status usable = check_plugin_file(options_.plugin, "the script compiler"); !usable)
    return fail(usable.error().message);
  handle_ = ::dlopen(options_.plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) return fail(options_.plugin.string() + ": cannot load the script compiler: " + ::dlerror());
  auto create = reinterpret_cast<CreateCompilerFunction>(::dlsym(handle_, kCreateCompilerSymbol));
  if (!create)
    return fail(options_.plugin.string() + ": not this Kiln's script compiler (no " + kCreateCompilerSymbol + ")");
  std::unique_ptr<PageCompiler> made(create(jit_build_id(), options_.opt_level, options_.frem_libcall ? 1 : 0));
  if (!made) return fail(options_.plugin.string() + ": a script compiler built from another Kiln than this program");
  const std::string actual = made->fingerprint();
  // Kept for the next process; a failure to write only means the next one asks the plugin again.
  // Only into a root that is this user's own directory (not a link, not another user's).
  if (!kept_.empty() && actual != fingerprint_ && cache::use_private_dir(options_.cache_root) &&
      cache::use_private_dir(kept_.parent_path()))
    (void)cache::write_file_atomic(kept_, std::as_bytes(std::span(actual.data(), actual.size())));
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

Status PluginPageCompiler::ensure_loaded() {
  auto compiler = load();
  if (!compiler) return compiler.error();
  return {};
}

Result<CompiledPage> PluginPageCompiler::compile(const PageRequest& request) {
  auto compiler = load();
  if (!compiler) return compiler.error();
  return (*compiler)->compile(request);
}

}  // namespace kiln::jit
