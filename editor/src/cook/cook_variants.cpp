#include "cook/cook_variants.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include "kiln/materials/material_layout.h"
#include "cook/previous_shaders.h"
#include "variant_records.h"

namespace kiln::cook {
namespace {

using Clock = std::chrono::steady_clock;

cache::Hash128 record_digest(const std::vector<std::byte>& encoded) { return cache::xxh3_128(encoded); }

// How messages name a variant: "shaders/lit Forward FOG;NORMALMAP".
std::string shown_variant(const materials::VariantKey& key) {
  return key.shader + " " + key.pass + (key.keywords.empty() ? "" : " " + key.keywords);
}

// Variant `i` of `target` copied from the previous pack into `sink`, if it is there from the same
// content key and its record reads; false: build it.
bool copy_previous(const PreviousShaders& previous, const TargetVariants& target, const std::string& target_id,
                   std::size_t i, bool first, VariantResult& r, std::mutex& sink_mu, const VariantSink& sink) {
  if (i >= target.content_keys.size() || !target.content_keys[i]) return false;
  const std::string name = r.planned->key.name();
  auto bytes = previous.find(target_id, name, *target.content_keys[i]);
  if (!bytes) return false;
  auto record = runtime::decode_variant_record(*bytes, name);
  if (!record) return false;
  for (auto& s : record->stages) {
    r.spirv_bytes += s.spirv.size() * 4;
    if (first) r.reflections.push_back(std::move(s.reflection));
  }
  r.ok = r.copied = true;
  r.record_digest = record_digest(*bytes);
  std::lock_guard lock(sink_mu);
  sink(target_id, name, *bytes);
  return true;
}

}  // namespace

void build_variants(std::span<const materials::PlannedVariant> variants, std::vector<TargetVariants>& targets,
                    const VariantSink& sink, core::WorkerPool& pool, Progress& progress, CookErrors& errors,
                    const PreviousShaders* previous) {
  const std::size_t count = variants.size();
  std::mutex sink_mu;
  for (auto& target : targets) {
    const bool first = &target == &targets.front();
    const std::string target_id = target.target.id();
    target.results.assign(count, {});
    std::atomic<std::size_t> done{0};
    pool.parallel_for(count, [&](std::size_t i) {
      const auto& key = variants[i].key;
      const auto started = Clock::now();
      VariantResult& r = target.results[i];
      r.planned = &variants[i];
      if (previous && sink && copy_previous(*previous, target, target_id, i, first, r, sink_mu, sink)) {
        r.ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
        progress.tick("variants", ++done, count);
        return;
      }
      auto variant = target.library->variant(key.shader, key.pass, key.keyword_list());
      r.ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
      if (!variant) {
        r.error = variant.error().message;
      } else {
        r.ok = true;
        r.cache_hit = (*variant)->from_disk;
        for (const auto& s : (*variant)->stages) {
          r.spirv_bytes += s.spirv.size() * 4;
          r.warnings += s.warnings;
          if (first) r.reflections.push_back(s.reflection);
        }
        if (sink) {  // a shard packs nothing
          const std::vector<std::byte> record = cli::encode_variant_record(**variant);
          r.record_digest = record_digest(record);
          std::lock_guard lock(sink_mu);
          sink(target_id, key.name(), record);
        }
      }
      progress.tick("variants", ++done, count);
    });
    const auto failed =
        std::count_if(target.results.begin(), target.results.end(), [](const VariantResult& r) { return !r.ok; });
    progress.done("variants", std::size_t(failed));
  }
  for (const auto& target : targets)
    for (const VariantResult& r : target.results)
      if (!r.ok) errors.add(r.error, shown_variant(r.planned->key));
}

std::vector<runtime::MaterialRecord> lay_out_materials(const project::Project& project, const TargetVariants& first,
                                                       CookErrors& errors) {
  materials::VariantReflections reflections;
  for (const VariantResult& r : first.results) {
    if (!r.ok) continue;
    auto& stages = reflections[r.planned->key.name()];
    for (const auto& reflection : r.reflections) stages.push_back(&reflection);
  }
  std::vector<runtime::MaterialRecord> records;
  for (const auto& m : project.materials) {
    const bool all_built =
        std::all_of(m.record.passes.begin(), m.record.passes.end(),
                    [&](const runtime::MaterialPass& p) { return reflections.count(p.variant) > 0; });
    if (!all_built) {
      // Its variants' errors say why; a variant missing without one is a bug of the cook.
      if (errors.empty()) errors.add(m.record.file + ": a variant it uses was not built");
      continue;
    }
    runtime::MaterialRecord record = m.record;
    if (auto laid = materials::lay_out_material(m.source, reflections, record); !laid)
      errors.add(laid.error().message);
    else
      records.push_back(std::move(record));
  }
  return records;
}

std::size_t verify_variants(
    const std::vector<TargetVariants>& targets,
    const std::function<shadercache::ShaderLibraryOptions(const runtime::ShaderTarget&)>& fresh_options,
    core::WorkerPool& pool, CookErrors& errors) {
  std::size_t checked = 0;
  for (const auto& target : targets) {
    shadercache::ShaderLibrary fresh(fresh_options(target.target));
    std::vector<char> differs(target.results.size(), 0);  // reported in the project's order below
    pool.parallel_for(target.results.size(), [&](std::size_t i) {
      const VariantResult& built = target.results[i];
      if (!built.ok) return;  // compiled now or served by the cache: both must match
      const auto& key = built.planned->key;
      auto again = fresh.variant(key.shader, key.pass, key.keyword_list());
      differs[i] = !again || record_digest(cli::encode_variant_record(**again)) != built.record_digest;
    });
    for (std::size_t i = 0; i < differs.size(); ++i) {
      checked += target.results[i].ok;
      if (!differs[i]) continue;
      const auto& key = target.results[i].planned->key;
      errors.add("cook: --verify: variant " + key.digest() + " (" + key.name() + ", " + target.target.id() +
                 ") differs from a fresh compile of it");
    }
  }
  return checked;
}

}  // namespace kiln::cook
