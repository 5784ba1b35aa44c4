#include <doctest/doctest.h>

#include "child_process.h"
#include "kiln/shadercache/variant_cache.h"

using namespace kiln;
using namespace kiln::shadercache;
using materials::VariantKey;

namespace {

// A counting compiler: counts calls; the value carries the key's digest.
struct SeedCompiler {
  int calls = 0;
  VariantCache::Compiler fn() {
    return [this](const VariantKey& k) -> Result<CompiledVariant> {
      ++calls;
      CompiledVariant v;
      v.stages.push_back({"frag", k.digest(), {}, {}, ""});
      return v;
    };
  }
};

}  // namespace

TEST_SUITE("shadercache") {
  TEST_CASE("seed: keyword_order_is_canonical") {
    auto a = VariantKey::create("Lit", "Forward", {"FOG", "SKIN"}, 7);
    auto b = VariantKey::create("Lit", "Forward", {"SKIN", "FOG", "FOG"}, 7);
    CHECK(a == b);
    CHECK(a.digest() == b.digest());
  }

  TEST_CASE("seed: pass_partitions_cache") {
    VariantCache c;
    SeedCompiler compiler;
    REQUIRE(c.get_or_compile(VariantKey::create("Lit", "Forward", {"FOG"}, 7), compiler.fn()));
    REQUIRE(c.get_or_compile(VariantKey::create("Lit", "Shadow", {"FOG"}, 7), compiler.fn()));
    CHECK(compiler.calls == 2);
    CHECK(c.count() == 2);
  }

  TEST_CASE("seed: source_revision_invalidates_stale_variant") {
    VariantCache c;
    SeedCompiler compiler;
    REQUIRE(c.get_or_compile(VariantKey::create("Lit", "Forward", {"FOG"}, 7), compiler.fn()));
    REQUIRE(c.get_or_compile(VariantKey::create("Other", "Forward", {"FOG"}, 7), compiler.fn()));
    CHECK(c.invalidate_shader("Lit", 8) == 1);
    CHECK(c.count() == 1);                        // the other shader is untouched
    CHECK(c.invalidate_shader("Other", 7) == 0);  // current revision: nothing stale
  }

  TEST_CASE("seed: cache_hit_does_not_recompile - and the FIXED line") {
    VariantCache c;
    SeedCompiler compiler;
    const auto first = VariantKey::create("Lit", "Forward", {"FOG", "SKIN"}, 7);
    auto a = c.get_or_compile(first, compiler.fn());
    auto b = c.get_or_compile(VariantKey::create("Lit", "Forward", {"SKIN", "FOG"}, 7), compiler.fn());
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->get() == b->get());
    CHECK(c.requests() == 2);
    CHECK(c.compiles() == 1);
    CHECK(compiler.calls == 1);
    CHECK(first.digest() == "2a876a0d5092");
    CHECK(c.invalidate_shader("Lit", 8) == 1);
    CHECK(c.count() == 0);
  }

  TEST_CASE("a failed compile is not cached and the last good variant stays available") {
    VariantCache c;
    SeedCompiler compiler;
    auto good = c.get_or_compile(VariantKey::create("Lit", "Forward", {"FOG"}, 1), compiler.fn());
    REQUIRE(good);
    VariantCache::Compiler failing = [](const VariantKey&) -> Result<CompiledVariant> {
      return make_error("lit.frag:3: error: 'x' : undeclared identifier");
    };
    const auto next = VariantKey::create("Lit", "Forward", {"FOG"}, 2);
    REQUIRE_FALSE(c.get_or_compile(next, failing));
    REQUIRE_FALSE(c.get_or_compile(next, failing));  // not cached: tried again
    auto last = c.last_good(next);
    REQUIRE(last);
    CHECK(last->variant.get() == good->get());
    CHECK(last->revision == 1);
    CHECK_FALSE(c.last_good(VariantKey::create("Lit", "Shadow", {"FOG"}, 2)));
  }

  TEST_CASE("keeping last good variants does not stop the budget from evicting") {
    // Room for a few hundred of these variants: more than the calling thread's level 1 keeps pinned
    // (64), whose values would otherwise count beyond the budget however the level 2 evicts.
    constexpr std::size_t kBudget = 131072;
    VariantCache c(kBudget);
    SeedCompiler compiler;
    for (int i = 0; i < 1000; ++i)
      REQUIRE(c.get_or_compile(VariantKey::create("S", "P", {"K" + std::to_string(i)}, 1), compiler.fn()));
    CHECK(c.count() < 1000);
    CHECK(c.stats().evictions > 0);
    CHECK(c.stats().bytes_in_use <= kBudget + kBudget / 8);
  }

  TEST_CASE("invalidate_shader scales with the variants of that shader through its index") {
    VariantCache c;
    SeedCompiler compiler;
    for (int i = 0; i < 2000; ++i)
      REQUIRE(c.get_or_compile(VariantKey::create("S" + std::to_string(i % 100), "P", {"K" + std::to_string(i)}, 1),
                               compiler.fn()));
    CHECK(c.invalidate_shader("S7", 2) == 20);
    CHECK(c.count() == 1980);
  }

  TEST_CASE("kiln probe variants prints its checks from a live cache") {
    auto r = test::run_process({KILN_CLI, "probe", "variants"});
    CHECK(r.exit_code == 0);
    CHECK(r.output ==
          "PASS keyword_order_is_canonical\n"
          "PASS pass_partitions_cache\n"
          "PASS source_revision_invalidates_stale_variant\n"
          "PASS cache_hit_does_not_recompile\n"
          "FIXED requests=2 compiles=1 digest=2a876a0d5092 invalidated=1 remaining=0\n"
          "RESULT passed=4 failed=0\n");
  }
}
