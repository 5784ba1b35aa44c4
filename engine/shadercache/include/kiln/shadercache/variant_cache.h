#pragma once
// VariantCache: owns the compiled variants of a session.
// get_or_compile calls the compiler only on a miss; concurrent requests
// for one key compile once (single flight through engine/cache); different keys compile in
// parallel. invalidate_shader (InvalidateShader) drops the variants of one shader whose revision is
// not current — through a shader -> keys index, O(variants of that shader) — and touches no other
// shader. count() says how many it holds.
//
// A failed compile is never cached; the last good variant of the same shader, pass and keywords
// stays available through last_good(), marked stale by its older revision.
//
// A hit writes no memory another thread reads (the cache's level 1 and per-thread counters): the
// request count is the cache's own, summed when read. borrow_or_compile() is the hit path for
// per-frame lookups; see TwoLevelCache::borrow for how long its pointer lives.
//
// Thread-safety: every member function may be called from any thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kiln/cache/two_level_cache.h"
#include "kiln/materials/variant_key.h"
#include "kiln/runtime/reflection.h"

namespace kiln::shadercache {

struct CompiledStage {
  std::string stage;  // "vert", "frag", "comp", ...
  std::string file;   // the stage's source, relative to the project root
  std::vector<std::uint32_t> spirv;
  runtime::StageReflection reflection;  // reflect_spirv()
  std::string backend_source;           // cross-compiled source, empty for the SPIR-V backend
  // The compiler's warnings, one per line ("shaders/lit.frag:12: warning: ..."): paths inside the
  // project root relative to it, so that a disk hit in another checkout names the right files.
  std::string warnings;
  // encode_reflection(reflection), made once with the stage (or read with it from the store): what
  // the store, the pack and the size count write, so that a hit never encodes the reflection again.
  std::string reflection_text;
};

struct CompiledVariant {
  std::vector<CompiledStage> stages;
  std::vector<std::string> dependencies;  // every file read: stage sources and includes
  bool from_disk = false;                 // served by the persistent store, not compiled
  std::size_t bytes() const;
};

class VariantCache {
 public:
  using Key = materials::VariantKey;
  using Handle = cache::Pinned<CompiledVariant>;
  using Compiler = std::function<Result<CompiledVariant>(const Key&)>;

  explicit VariantCache(std::size_t memory_budget_bytes = std::size_t{512} << 20);

  Result<Handle> get_or_compile(const Key& key, const Compiler& compiler);
  // As get_or_compile, borrowed: valid until this thread's next call on this cache; a level-1 hit
  // changes no reference count.
  Result<const CompiledVariant*> borrow_or_compile(const Key& key, const Compiler& compiler);
  std::size_t invalidate_shader(const std::string& shader, int current_revision);
  std::size_t count() const;

  struct LastGood {
    Handle variant;
    int revision;  // older than the request's: the variant is stale
  };
  // Kept as a weak reference while the variant is in the cache (so the budget can evict it), as a
  // strong one once invalidate_shader dropped it (so a failed recompile still has it).
  struct LastGoodSlot {
    std::weak_ptr<const CompiledVariant> live;
    Handle kept;
    int revision = 0;
  };
  // The newest good variant of key's shader, pass and keywords, whatever its revision.
  std::optional<LastGood> last_good(const Key& key) const;

  std::uint64_t requests() const;  // every get_or_compile and borrow_or_compile
  std::uint64_t compiles() const { return compiles_.load(); }
  cache::TwoLevelCacheStats stats() const { return cache_.stats(); }

 private:
  struct Load;
  void record_last_good(const Key& key, const Handle& variant);

  cache::TwoLevelCache<Key, CompiledVariant, materials::VariantKeyHash> cache_;
  std::atomic<std::uint64_t> compiles_{0};  // written on a miss only
  mutable std::mutex last_good_mu_;
  std::map<std::string, LastGoodSlot> last_good_;  // "shader|pass|keywords"
};

// The tag of every variant of `shader` (the index behind invalidate_shader).
cache::Tag shader_tag(const std::string& shader);

}  // namespace kiln::shadercache
