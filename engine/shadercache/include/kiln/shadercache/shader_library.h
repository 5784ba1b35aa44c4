#pragma once
// ShaderLibrary: the shaders of one project, compiled on demand through a VariantCache with a
// persistent level in a BlobStore.
//
// Nothing outside the root and the include directories is read: a stage file or an include that
// leads elsewhere (by "..", an absolute name or a symbolic link) is an error naming it.
//
// A shader id names its stage files relative to the project root: "shaders/lit" is every existing
// shaders/lit.<stage> (GLSL) or shaders/lit.<stage>.hlsl (HLSL), one file per stage, the languages
// mixed freely; an id with a stage extension ("shaders/lit.frag", "shaders/lit.frag.hlsl") is that
// file alone. An HLSL stage starts at main, or at its `#pragma kiln entry NAME`. Its declaration (#pragma kiln, see materials/shader_declaration.h) decides which
// requests are legal.
//
// Each shader has an in-session revision, bumped by file_changed() for its stage files and every
// file they include; the bump invalidates exactly that shader's stale variants. The persistent level
// is keyed by content instead — the sources and includes, pass, keywords — under a namespace of the
// compiler and SPIRV-Cross versions, target environment, backend and options: a restarted editor or
// a second cook hits the disk; a failed compile is never stored.
//
// Thread-safety: every member function may be called from any thread; compiles of different keys
// run in parallel on the calling threads.

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kiln/cache/blob_store.h"
#include "kiln/materials/shader_declaration.h"
#include "kiln/shadercache/glsl_compiler.h"
#include "kiln/shadercache/isolated_compiler.h"
#include "kiln/shadercache/backends.h"
#include "kiln/shadercache/reflection.h"
#include "kiln/shadercache/variant_cache.h"

namespace kiln::shadercache {

struct ShaderLibraryOptions {
  std::filesystem::path root;
  std::vector<std::filesystem::path> include_dirs;  // searched after the including file's directory
  std::vector<std::string> defines;                 // for every variant: "NAME" (`#define NAME 1`) or "NAME=VALUE"
  TargetEnv target = TargetEnv::kVulkan1_0;
  Backend backend = Backend::kSpirv;
  cache::BlobStore* store = nullptr;  // the persistent level; nullptr turns it off
  // Compile every variant and store the result, reading nothing from the store: a verify run, whose
  // fresh compiles replace whatever the store held for them (so that a wrong entry it finds is
  // never served again).
  bool refresh_store = false;
  std::size_t memory_budget_bytes = std::size_t{512} << 20;
  CompileIsolation isolation;  // how glslang runs: on large-stack threads, or in worker processes
  // The entry point of every HLSL stage, over its `#pragma kiln entry` (`kiln shader compile
  // --entry`); empty: the pragma's, or main.
  std::string entry;
};

using materials::ShaderProgram;

struct ShaderLibraryStats {
  std::uint64_t disk_hits = 0;
  std::uint64_t disk_misses = 0;
  std::uint64_t compiles = 0;  // glslang runs of whole variants
  std::uint64_t compile_errors = 0;
  std::uint64_t undecodable_blobs = 0;
};

// A variant a material resolved once, the way an engine keeps a pipeline on its material: the
// per-draw check (ShaderLibrary::current) is one load and one compare against the library's
// generation, which file_changed() bumps when it changes a shader's revision.
// Owned by whoever draws with it; one thread at a time.
struct VariantHandle {
  std::string id, pass;
  std::vector<std::string> keywords;
  VariantCache::Handle variant;  // pinned: the compiled variant stays while the handle holds it
  std::uint64_t generation = 0;  // the library's generation it was resolved at
};

class ShaderLibrary final : public materials::ShaderCatalog {
 public:
  explicit ShaderLibrary(ShaderLibraryOptions options);

  // Read once per revision of the shader; shared, immutable.
  Result<std::shared_ptr<const ShaderProgram>> program(const std::string& id) override;
  int revision(const std::string& id) const;

  // The variant of `id` for `pass` and `keywords` at the shader's current revision. An unknown
  // keyword or pass is an error naming it, the shader and the legal set.
  Result<VariantCache::Handle> variant(const std::string& id, const std::string& pass,
                                       const std::vector<std::string>& keywords);
  materials::VariantKey key(const std::string& id, const std::string& pass,
                            const std::vector<std::string>& keywords) const;

  // What the persistent level keys the variant by: its sources' bytes, stages and defines, read
  // and hashed once per revision of the shader, without compiling or reading the store. nullopt
  // when its key does not cover everything it reads (an include that resolves to nothing).
  Result<std::optional<cache::BlobKey>> content_key(const materials::VariantKey& key);

  // The variant, resolved into a handle that current() keeps up to date.
  Result<VariantHandle> resolve(const std::string& id, const std::string& pass, std::vector<std::string> keywords);
  // The handle's variant: as resolved, unless a file changed since, then resolved again. An error
  // (a broken edit without a last good variant) leaves the handle to try again next time.
  Result<const CompiledVariant*> current(VariantHandle& handle) {
    if (handle.variant && handle.generation == variants_generation_.load(std::memory_order_acquire))
      return handle.variant.get();
    return refresh(handle);
  }

  // `file` (relative to the root or absolute) changed on disk: bumps the revision of every shader
  // that reads it and drops their stale variants. Returns those shaders' ids.
  std::vector<std::string> file_changed(const std::filesystem::path& file);

  VariantCache& cache() { return cache_; }
  // The canonical project root and include directories: where project files may lead.
  const std::vector<std::filesystem::path>& roots() const override { return roots_; }
  ShaderLibraryStats stats() const;
  IsolatedCompilerStats compiler_stats() const { return compiler_->stats(); }
  const cache::BlobNamespace* disk_namespace() const { return ns_ ? &*ns_ : nullptr; }
  // The namespace identity of this library's persistent level: the build (compiler versions,
  // options, formats: what a new Kiln changes) and the settings (target, backend), which one build
  // varies and pruning keeps together.
  static cache::Identity build_identity();
  cache::Identity settings_identity() const;
  // The id of that namespace, whether or not a store is open: what a cooked set names its
  // shaders by, so that a cache that cannot be used never changes what a cook writes.
  std::string namespace_id() const { return cache::namespace_id(build_identity(), settings_identity()); }

 private:
  struct Sources;
  struct Build;
  // The shader's files at its current revision, read and hashed once.
  Result<std::shared_ptr<const Sources>> sources(const std::string& id);
  std::vector<std::string> defines_of(const Sources& sources, const materials::VariantKey& key) const;
  static cache::BlobKey content_key_of(const Sources& sources, const std::vector<std::string>& defines);
  Result<CompiledVariant> build(const materials::VariantKey& key);
  // `read_outside_snapshot`: a file the scan did not see was read, so the key does not cover it.
  Result<CompiledVariant> compile(const Build& build, bool& read_outside_snapshot);
  std::filesystem::path absolute(const std::string& relative) const;
  std::string relative(const std::filesystem::path& file) const;
  // A compiler log with the root's prefix taken off the paths of files inside it.
  std::string root_relative_log(const std::string& log) const;
  static std::string normal_id(const std::string& id);
  Status stages_inside(const std::string& id, const std::vector<std::string>& stage_files) const;
  // The stage files of `id` that exist; two files of one stage (lit.frag and lit.frag.hlsl) are an error.
  Result<std::vector<std::string>> present_stage_files(const std::string& id) const;
  Status defines_leave_keywords(const std::string& id, const materials::ShaderDeclaration& declaration) const;
  Result<const CompiledVariant*> refresh(VariantHandle& handle);

  ShaderLibraryOptions options_;
  std::vector<std::filesystem::path> include_dirs_;  // absolute
  std::vector<std::filesystem::path> roots_;  // canonical root and include directories: nothing is read outside them
  std::optional<cache::BlobNamespace> ns_;
  VariantCache cache_;
  std::unique_ptr<IsolatedCompiler> compiler_;
  std::mutex invalidate_mu_;      // file_changed() runs one at a time: revisions reach the cache in order
  mutable std::mutex mu_;         // guards the maps below and generation_ changes
  std::uint64_t generation_ = 0;  // bumped by file_changed(): a program read before it is not cached
  std::map<std::string, int> revisions_;
  std::map<std::string, std::shared_ptr<const ShaderProgram>> programs_;
  std::map<std::string, std::shared_ptr<const Sources>> sources_;
  std::map<std::string, std::set<std::string>> dependencies_;  // shader -> files it reads (relative)
  std::atomic<std::uint64_t> disk_hits_{0}, disk_misses_{0}, compiles_{0}, compile_errors_{0}, undecodable_{0};
  // Bumped after file_changed() changed a revision; read by every current() check, written rarely:
  // a cache line of its own.
  alignas(64) std::atomic<std::uint64_t> variants_generation_{1};
};

}  // namespace kiln::shadercache
