#pragma once
// The cook's variants stage: every planned variant built for every target on the tool's worker
// pool (through the persistent variant cache), the materials laid out against the built variants'
// reflection, and with --verify every variant compiled again and compared byte for byte.
//
// Thread-safety: called from the cook's thread; the work runs on `pool`.

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cook/cook_errors.h"
#include "kiln/cache/hash.h"
#include "kiln/project/project.h"
#include "cook/progress.h"
#include "kiln/core/worker_pool.h"
#include "kiln/runtime/variant_record.h"
#include "kiln/shadercache/shader_library.h"

namespace kiln::cook {

// One planned variant as one target built it. What it built went to the VariantSink: a result
// keeps what the cook needs afterwards, not the variant.
struct VariantResult {
  const materials::PlannedVariant* planned = nullptr;  // in the span build_variants was given
  bool ok = false, cache_hit = false;
  bool copied = false;  // from the set's previous shaders pack: its content key had not changed
  double ms = 0;
  std::size_t spirv_bytes = 0;
  std::string error;
  std::string warnings;                               // the compiler's, one per line, project-relative
  std::vector<runtime::StageReflection> reflections;  // the first target's only: materials are laid out by them
  cache::Hash128 record_digest;                       // of the record the sink was given: what --verify compares
};

// Where each built variant's encoded record goes (the set's shaders pack), from the pool's
// threads one at a time; empty: nowhere (a shard).
using VariantSink =
    std::function<void(const std::string& target, const std::string& name, std::span<const std::byte> record)>;

// One library per target, in the settings' order, and what it built.
struct TargetVariants {
  runtime::ShaderTarget target;
  std::unique_ptr<shadercache::ShaderLibrary> library;
  std::vector<VariantResult> results;  // one per variant built, in the order asked
  // Each planned variant's content key, in the same order (shaders_inputs makes them); nullopt
  // where the key does not cover what the variant reads.
  std::vector<std::optional<cache::BlobKey>> content_keys;
};

class PreviousShaders;

// Builds every one of `variants` with every library, each into `sink` as it is built; errors go to
// `errors`, naming the variant. `variants` must outlive the results. With `previous`, a variant
// whose content key (the target's content_keys) is the one it was packed from is copied from there.
void build_variants(std::span<const materials::PlannedVariant> variants, std::vector<TargetVariants>& targets,
                    const VariantSink& sink, core::WorkerPool& pool, Progress& progress, CookErrors& errors,
                    const PreviousShaders* previous = nullptr);

// The records of the project's materials (in its order) with their parameter blocks and texture
// bindings laid out from the first target's reflection; a material whose variants did not build
// is left to their errors and out of the list.
std::vector<runtime::MaterialRecord> lay_out_materials(const project::Project& project, const TargetVariants& first,
                                                       CookErrors& errors);

// --verify: each built variant compiled afresh with `fresh_options(target)` (which refresh the
// store, so a differing entry is never served again) must equal what was built. Returns the count.
std::size_t verify_variants(
    const std::vector<TargetVariants>& targets,
    const std::function<shadercache::ShaderLibraryOptions(const runtime::ShaderTarget&)>& fresh_options,
    core::WorkerPool& pool, CookErrors& errors);

}  // namespace kiln::cook
