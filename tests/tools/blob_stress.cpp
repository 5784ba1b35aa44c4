// kiln-blob-stress: a BlobStore client that the multi-process tests start, kill and compare.
//
//   kiln-blob-stress write  <root>                 put pattern blobs 0,1,2,… forever; "written N" after each flush
//   kiln-blob-stress share  <root> <n> <seed> <rounds>  get-or-put keys 0..n-1 in a shuffled order
//   kiln-blob-stress check  <root> <n>             read keys 0..n-1
//   kiln-blob-stress prune  <root> <max-bytes> <ms> prune in a loop for <ms> milliseconds
//
// share and check print "hits=H puts=P mismatches=M" and exit 1 on any mismatch.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>

#include "blob_pattern.h"
#include "kiln/cache/blob_store.h"

using namespace kiln;

namespace {

std::unique_ptr<cache::BlobStore> open_store(const char* root, std::uint64_t max_bytes = std::uint64_t{1} << 34) {
  cache::BlobStoreOptions o;
  o.root = root;
  o.max_bytes = max_bytes;
  auto store = cache::BlobStore::open(o);
  if (!store) {
    std::fprintf(stderr, "open: %s\n", store.error().message.c_str());
    std::exit(2);
  }
  return std::move(*store);
}

cache::BlobNamespace stress_namespace(cache::BlobStore& store) {
  auto ns = store.open_namespace("shaders", {{"test", "blob-stress"}});
  if (!ns) {
    std::fprintf(stderr, "namespace: %s\n", ns.error().message.c_str());
    std::exit(2);
  }
  return *ns;
}

int write_forever(const char* root) {
  auto store = open_store(root);
  auto ns = stress_namespace(*store);
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    store->put(ns, test::pattern_key(i), test::pattern_payload(i));
    if (i % 16 == 15) {
      store->flush();
      std::printf("written=%llu\n", static_cast<unsigned long long>(i + 1));
      std::fflush(stdout);
    }
  }
  return 0;
}

int get_or_put(const char* root, std::uint64_t n, unsigned seed, int rounds, bool put_missing) {
  auto store = open_store(root);
  auto ns = stress_namespace(*store);
  std::vector<std::uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  std::uint64_t hits = 0, puts = 0, mismatches = 0;
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::uint64_t i : order) {
      if (auto got = store->get(ns, test::pattern_key(i))) {
        ++hits;
        if (*got != test::pattern_payload(i)) ++mismatches;
      } else if (put_missing) {
        store->put(ns, test::pattern_key(i), test::pattern_payload(i));
        ++puts;
      }
    }
  }
  store->flush();
  std::printf("hits=%llu puts=%llu mismatches=%llu corrupt=%llu\n", static_cast<unsigned long long>(hits),
              static_cast<unsigned long long>(puts), static_cast<unsigned long long>(mismatches),
              static_cast<unsigned long long>(store->stats().corrupt_deleted));
  return mismatches == 0 ? 0 : 1;
}

int prune_loop(const char* root, std::uint64_t max_bytes, int millis) {
  auto store = open_store(root, max_bytes);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(millis);
  int prunes = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (auto r = store->prune(); !r) {
      std::fprintf(stderr, "prune: %s\n", r.error().message.c_str());
      return 1;
    }
    ++prunes;
  }
  std::printf("prunes=%d\n", prunes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 3) return write_forever(argv[2]);
  if (mode == "share" && argc == 6)
    return get_or_put(argv[2], std::strtoull(argv[3], nullptr, 10), static_cast<unsigned>(std::atoi(argv[4])),
                      std::atoi(argv[5]), true);
  if (mode == "check" && argc == 4) return get_or_put(argv[2], std::strtoull(argv[3], nullptr, 10), 1, 1, false);
  if (mode == "prune" && argc == 5) return prune_loop(argv[2], std::strtoull(argv[3], nullptr, 10), std::atoi(argv[4]));
  std::fprintf(stderr, "usage: see the comment at the top of tests/tools/blob_stress.cpp\n");
  return 2;
}
