#include "kiln/jit/compiler_plugin.h"

#include "kiln/cache/hash.h"
#include "kiln/core/program_files.h"
#include "kiln/core/runtime_library.h"
#include "kiln/jit/host_features.h"
#include "kiln/jit/jit_runtime.h"

namespace kiln::jit {
namespace fs = std::filesystem;
namespace {

// The key of this host's and these settings' fingerprint.
cache::BlobKey fingerprint_key(const CompilerPluginOptions& o) {
  const std::string identity =
      host_cpu_signature() + "\nO" + std::to_string(o.opt_level) + (o.frem_libcall ? "\nfrem-libcall" : "");
  return {cache::xxh3_128(identity)};
}

}  // namespace

fs::path default_compiler_plugin() { return find_program_file("kiln-jitc.so"); }

Result<std::unique_ptr<PluginPageCompiler>> PluginPageCompiler::create(CompilerPluginOptions options) {
  if (options.plugin.empty()) options.plugin = default_compiler_plugin();
  std::unique_ptr<PluginPageCompiler> self(new PluginPageCompiler(std::move(options)));
  if (cache::BlobStore* store = self->options_.store) {
    // The store reads only this user's sound entries: a planted or damaged one is never trusted.
    if (auto ns = store->open_namespace("jit", {{"jit-build", jit_build_id()}}, {{"kept", "compiler-fingerprint"}}))
      self->kept_ns_ = std::move(*ns);
    self->kept_key_ = fingerprint_key(self->options_);
    if (self->kept_ns_)
      if (auto kept = store->get(*self->kept_ns_, self->kept_key_)) {
        const std::string text(reinterpret_cast<const char*>(kept->data()), kept->size());
        // One line, naming no feature this CPU lacks (else not this host's: a copied cache): used.
        if (!text.empty() && text.size() <= 4096 && text.find('\n') == std::string::npos &&
            missing_cpu_features(text).empty()) {
          self->fingerprint_ = text;
          return self;
        }
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
  auto plugin = Plugin::open(options_.plugin, "kiln-jitc.so", "script compiler");
  if (!plugin) return fail(plugin.error().message);
  auto entry = plugin->entry(kCreateCompilerSymbol);
  if (!entry) return fail(entry.error().message);
  auto create = reinterpret_cast<CreateCompilerFunction>(*entry);
  std::unique_ptr<PageCompiler> made(create(jit_build_id(), options_.opt_level, options_.frem_libcall ? 1 : 0));
  if (!made) return fail(options_.plugin.string() + ": a script compiler built from another Kiln than this program");
  const std::string actual = made->fingerprint();
  // Kept for the next process; a failure to write only means the next one asks the plugin again.
  if (kept_ns_ && actual != fingerprint_) {
    const auto bytes = std::as_bytes(std::span(actual.data(), actual.size()));
    options_.store->put(*kept_ns_, kept_key_, cache::Bytes(bytes.begin(), bytes.end()));
  }
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
