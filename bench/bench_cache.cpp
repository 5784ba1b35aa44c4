// Costs of the cache core: TwoLevelCache level-1 hit (pinned and borrowed), level-2 hit and
// miss+load (1, 2, 4 and 8 threads: all threads together, so a rate that falls with threads is a
// shared write),
// BlobStore put and get for 4 KiB and 64 KiB blobs. Run: build/release/bench/bench_cache
// (figures in BENCHMARKS.md); each multi-thread run prints its ratio to one thread (vs_1_thread). The cache root is a fresh directory under $TMPDIR.

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kiln/cache/blob_store.h"
#include "kiln/cache/two_level_cache.h"

using namespace kiln;
using namespace kiln::cache;

namespace {

// A small value, 128 bytes: with 8-byte values the allocations of two threads' values (and their
// reference counts) share cache lines, and the benchmark measures false sharing instead.
using Value = std::array<std::uint64_t, 16>;
using Cache = TwoLevelCache<std::uint64_t, Value>;

Result<Loaded<Value>> load_value(std::uint64_t key) { return Loaded<Value>{Value{key}, sizeof(Value), {}}; }

// Shared between the benchmark's threads; rebuilt by thread 0 at the start of each run.
Cache* g_cache = nullptr;
std::atomic<std::uint64_t> g_next_key{0};

void setup(const benchmark::State& state, std::size_t l1_entries, std::size_t budget) {
  if (state.thread_index() != 0) return;
  delete g_cache;
  g_cache = new Cache({.budget_bytes = budget, .l1_entries = l1_entries, .shards = 16});
  g_next_key = 1'000'000;
}

// Each thread hits the same 4 keys: all in its level 1 after the first round.
void BM_L1Hit(benchmark::State& state) {
  setup(state, 8, 1 << 30);
  std::uint64_t i = 0;
  for (auto _ : state) {
    auto v = g_cache->get(i++ & 3, [&] { return load_value(i & 3); });
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}

// As BM_L1Hit, borrowed: the thread's level-1 pin keeps the value, no reference count changes.
void BM_L1HitBorrowed(benchmark::State& state) {
  setup(state, 8, 1 << 30);
  std::uint64_t i = 0;
  for (auto _ : state) {
    auto v = g_cache->borrow(i++ & 3, [&] { return load_value(i & 3); });
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}

// As above, but each thread has its own 4 keys: no reference count is shared between threads.
void BM_L1HitOwnKeys(benchmark::State& state) {
  setup(state, 8, 1 << 30);
  const std::uint64_t base = static_cast<std::uint64_t>(state.thread_index()) * 4;
  std::uint64_t i = 0;
  for (auto _ : state) {
    const std::uint64_t key = base + (i++ & 3);
    auto v = g_cache->get(key, [&] { return load_value(key); });
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}

// Level 1 off: every get is a level-2 hit, read without a lock, pinned (a reference count written
// per hit). 4096 keys spread over the shards; the threads walk them apart but all of them.
void BM_L2Hit(benchmark::State& state) {
  setup(state, 0, 1 << 30);
  std::uint64_t i = static_cast<std::uint64_t>(state.thread_index()) * 7919;
  for (auto _ : state) {
    const std::uint64_t key = i++ & 4095;
    auto v = g_cache->get(key, [&] { return load_value(key); });
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}

// As BM_L2Hit, borrowed: the thread's hazard keeps the entry, nothing shared is written.
void BM_L2HitBorrowed(benchmark::State& state) {
  setup(state, 0, 1 << 30);
  std::uint64_t i = static_cast<std::uint64_t>(state.thread_index()) * 7919;
  for (auto _ : state) {
    const std::uint64_t key = i++ & 4095;
    auto v = g_cache->borrow(key, [&] { return load_value(key); });
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}

// Every get is a new key: miss, load (trivial loader), insert and, past the 1 MiB budget, evict.
void BM_MissLoad(benchmark::State& state) {
  setup(state, 8, 1 << 20);
  for (auto _ : state) {
    const std::uint64_t key = g_next_key.fetch_add(1, std::memory_order_relaxed);
    auto v = g_cache->get(key, [&] { return load_value(key); });
    benchmark::DoNotOptimize(v);
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_L1Hit)->Threads(1)->Threads(2)->Threads(4)->Threads(8)->UseRealTime();
BENCHMARK(BM_L1HitBorrowed)->Threads(1)->Threads(2)->Threads(4)->Threads(8)->UseRealTime();
BENCHMARK(BM_L1HitOwnKeys)->Threads(1)->Threads(2)->Threads(4)->Threads(8)->UseRealTime();
BENCHMARK(BM_L2Hit)->Threads(1)->Threads(2)->Threads(4)->Threads(8)->UseRealTime();
BENCHMARK(BM_L2HitBorrowed)->Threads(1)->Threads(2)->Threads(4)->Threads(8)->UseRealTime();
BENCHMARK(BM_MissLoad)->Threads(1)->Threads(2)->Threads(4)->Threads(8)->UseRealTime();

struct StoreFixture {
  std::filesystem::path dir;
  std::unique_ptr<BlobStore> store;
  BlobNamespace ns;
  explicit StoreFixture(bool background) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln-bench-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
    store = std::move(
        *BlobStore::open({.root = dir, .max_bytes = std::uint64_t{1} << 40, .background_writes = background}));
    ns = *store->open_namespace("shaders", {{"bench", "1"}});
  }
  ~StoreFixture() {
    store.reset();
    std::filesystem::remove_all(dir);
  }
};

// Synchronous put: header, checksum, temp file, write, fsync, rename.
void BM_BlobPut(benchmark::State& state) {
  StoreFixture f(false);
  const Bytes payload(static_cast<std::size_t>(state.range(0)), std::byte{7});
  std::uint64_t i = 0;
  for (auto _ : state) f.store->put(f.ns, {xxh3_128(std::to_string(i++))}, payload);
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// Background put as a caller sees it: encode and enqueue (the writer thread does the rest;
// flush is timed at the end so the writer's work is not hidden).
void BM_BlobPutBackground(benchmark::State& state) {
  StoreFixture f(true);
  const Bytes payload(static_cast<std::size_t>(state.range(0)), std::byte{7});
  std::uint64_t i = 0;
  for (auto _ : state) f.store->put(f.ns, {xxh3_128(std::to_string(i++))}, payload);
  f.store->flush();
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// Get of a blob on disk (page cache warm): open, fstat, read, verify both checksums.
void BM_BlobGet(benchmark::State& state) {
  StoreFixture f(false);
  const Bytes payload(static_cast<std::size_t>(state.range(0)), std::byte{7});
  constexpr int kBlobs = 64;
  for (int k = 0; k < kBlobs; ++k) f.store->put(f.ns, {xxh3_128(std::to_string(k))}, payload);
  int k = 0;
  for (auto _ : state) {
    auto got = f.store->get(f.ns, {xxh3_128(std::to_string(k++ % kBlobs))});
    benchmark::DoNotOptimize(got);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_BlobPut)->Arg(4096)->Arg(65536)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlobPutBackground)->Arg(4096)->Arg(65536)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BlobGet)->Arg(4096)->Arg(65536)->Unit(benchmark::kMicrosecond);

// The console report with a vs_1_thread counter on each run of a benchmark that runs on several
// threads: its rate over the same benchmark's rate on one thread (1.00 on one thread; below the
// 2-thread figure at 4 or 8 threads means a write the threads share).
class ThreadRatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> shown = runs;
    for (auto& run : shown) {
      std::string family = run.benchmark_name();
      const auto at = family.find("/threads:");
      const auto rate = run.counters.find("items_per_second");
      if (at == std::string::npos || rate == run.counters.end() || run.run_type != Run::RT_Iteration) continue;
      const auto end = family.find('/', at + 1);
      const int threads = std::stoi(family.substr(at + 9, end == std::string::npos ? end : end - at - 9));
      family.erase(at, end == std::string::npos ? std::string::npos : end - at);
      if (threads == 1) one_thread_[family] = rate->second.value;
      if (const auto base = one_thread_.find(family); base != one_thread_.end() && base->second > 0)
        run.counters["vs_1_thread"] = benchmark::Counter(rate->second.value / base->second);
    }
    ConsoleReporter::ReportRuns(shown);
  }

 private:
  std::map<std::string, double> one_thread_;  // each benchmark's rate on one thread
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ThreadRatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
