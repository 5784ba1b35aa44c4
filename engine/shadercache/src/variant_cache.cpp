#include "kiln/shadercache/variant_cache.h"

#include "kiln/cache/hash.h"

namespace kiln::shadercache {
namespace {

std::string identity_without_revision(const materials::VariantKey& k) { return k.name(); }

}  // namespace

std::size_t CompiledVariant::bytes() const {
  std::size_t n = sizeof(*this);
  for (const auto& s : stages)
    n += sizeof(s) + s.spirv.size() * 4 + s.reflection_text.size() + s.backend_source.size() + s.file.size();
  for (const auto& d : dependencies) n += d.size() + sizeof(d);
  return n;
}

cache::Tag shader_tag(const std::string& shader) { return cache::xxh3_64("shader:" + shader); }

// Level 1 holds a frame's variants: a scene draws dozens of materials, and a variant is small
// next to the budget (64 pinned per thread are a few MiB at most).
VariantCache::VariantCache(std::size_t memory_budget_bytes)
    : cache_({.budget_bytes = memory_budget_bytes, .l1_entries = 64, .shards = 16}) {}

// The loader of a miss: compiles, and records the variant as its key's last good one once the cache
// has it (so that hits stay off that lock).
struct VariantCache::Load {
  VariantCache& cache;
  const Key& key;
  const Compiler& compiler;
  bool loaded = false;
  Result<cache::Loaded<CompiledVariant>> operator()() {
    cache.compiles_.fetch_add(1, std::memory_order_relaxed);
    auto compiled = compiler(key);
    if (!compiled) return compiled.error();
    loaded = true;
    const std::size_t bytes = compiled->bytes();
    return cache::Loaded<CompiledVariant>{std::move(*compiled), bytes, {shader_tag(key.shader)}};
  }
};

void VariantCache::record_last_good(const Key& key, const Handle& variant) {
  std::lock_guard lock(last_good_mu_);
  auto& slot = last_good_[identity_without_revision(key)];
  if (slot.live.expired() && !slot.kept) slot.revision = 0;
  if (slot.revision <= key.source_revision) slot = LastGoodSlot{variant, nullptr, key.source_revision};
}

Result<VariantCache::Handle> VariantCache::get_or_compile(const Key& key, const Compiler& compiler) {
  Load load{*this, key, compiler};
  auto result = cache_.get(key, std::ref(load));
  if (load.loaded && result) record_last_good(key, *result);
  return result;
}

Result<const CompiledVariant*> VariantCache::borrow_or_compile(const Key& key, const Compiler& compiler) {
  Load load{*this, key, compiler};
  auto result = cache_.borrow(key, std::ref(load));
  if (load.loaded && result) {
    // The loading request is rare; it takes a pin for the last-good record.
    if (auto pinned = cache_.peek(key)) record_last_good(key, *pinned);
  }
  return result;
}

std::uint64_t VariantCache::requests() const {
  const cache::TwoLevelCacheStats s = cache_.stats();
  return s.l1_hits + s.l2_hits + s.misses + s.load_waits;
}

std::size_t VariantCache::invalidate_shader(const std::string& shader, int current_revision) {
  return cache_.invalidate_tag_if(
      shader_tag(shader), [&](const Key& k) { return k.shader == shader && k.source_revision != current_revision; },
      [&](const Key& k, const Handle& dropped) {
        std::lock_guard lock(last_good_mu_);
        auto it = last_good_.find(identity_without_revision(k));
        if (it != last_good_.end() && it->second.revision == k.source_revision) it->second.kept = dropped;
      });
}

std::size_t VariantCache::count() const { return cache_.stats().entries; }

std::optional<VariantCache::LastGood> VariantCache::last_good(const Key& key) const {
  std::lock_guard lock(last_good_mu_);
  auto it = last_good_.find(identity_without_revision(key));
  if (it == last_good_.end()) return std::nullopt;
  Handle variant = it->second.kept ? it->second.kept : it->second.live.lock();
  if (!variant) return std::nullopt;  // evicted while current: the next request recompiles it
  return LastGood{variant, it->second.revision};
}

}  // namespace kiln::shadercache
