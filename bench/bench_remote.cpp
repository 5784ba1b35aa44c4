// Latency of one cache hit per blob: local disk (the BlobStore, warm page cache), a Redis server
// and an HTTP cache (each through the backend alone, and through a store with an empty local
// level, which also checks the entry and queues its local copy). Sequential lookups on one thread:
// the cost a cook's worker pays per variant it does not compile.
//
//   bench_remote --redis redis://127.0.0.1:6379/0 --http http://127.0.0.1:8080/cache
//                [--blobs 500] [--bytes 16384] [--dir /tmp/x]
// bench/bench_remote.sh starts the servers and runs this beside the cook timings.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kiln/cache/blob_store.h"
#include "kiln/cache/remote_storage.h"

using namespace kiln;
using namespace kiln::cache;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Figures {
  double median_us = 0, mean_us = 0;
};

// Runs `one(i)` for every blob, twice (the first round warms connections and the page cache);
// `setup` (untimed) before each round.
Figures measure(std::size_t blobs, const std::function<bool(std::size_t)>& one,
                const std::function<void()>& setup = {}) {
  std::vector<double> us;
  for (int round = 0; round < 2; ++round) {
    if (setup) setup();
    us.clear();
    for (std::size_t i = 0; i < blobs; ++i) {
      const auto t0 = Clock::now();
      if (!one(i)) {
        std::fprintf(stderr, "bench_remote: lookup %zu missed\n", i);
        std::exit(1);
      }
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  }
  Figures f;
  for (double v : us) f.mean_us += v / double(us.size());
  std::sort(us.begin(), us.end());
  f.median_us = us[us.size() / 2];
  return f;
}

Bytes payload_of(std::size_t i, std::size_t bytes) {
  Bytes b(bytes);
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
  for (auto& v : b) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = std::byte(x);
  }
  return b;
}

std::unique_ptr<BlobStore> open_store(const fs::path& root, std::shared_ptr<RemoteStorage> remote) {
  auto store = BlobStore::open({.root = root, .remote = std::move(remote)});
  if (!store) {
    std::fprintf(stderr, "bench_remote: %s\n", store.error().message.c_str());
    std::exit(1);
  }
  return std::move(*store);
}

}  // namespace

int main(int argc, char** argv) {
  std::string redis, http;
  std::size_t blobs = 500, bytes = 16384;
  fs::path dir = fs::temp_directory_path() / ("kiln-bench-remote-" + std::to_string(::getpid()));
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--redis")
      redis = value;
    else if (flag == "--http")
      http = value;
    else if (flag == "--blobs")
      blobs = std::stoul(value);
    else if (flag == "--bytes")
      bytes = std::stoul(value);
    else if (flag == "--dir")
      dir = value;
  }
  std::printf("| %zu blobs of %zu bytes, one thread | median | mean |\n| --- | --- | --- |\n", blobs, bytes);
  auto row = [](const std::string& what, const Figures& f) {
    std::printf("| %s | %.1f us | %.1f us |\n", what.c_str(), f.median_us, f.mean_us);
  };
  auto key_of = [](std::size_t i) { return BlobKey{xxh3_128("bench-remote-" + std::to_string(i))}; };

  // The local level alone.
  {
    auto store = open_store(dir / "local", nullptr);
    auto ns = store->open_namespace("shaders", {{"bench", "remote"}});
    for (std::size_t i = 0; i < blobs; ++i) store->put(*ns, key_of(i), payload_of(i, bytes));
    store->flush();
    row("local disk (BlobStore hit)",
        measure(blobs, [&](std::size_t i) { return store->get(*ns, key_of(i)).has_value(); }));
  }
  for (const auto& [name, url] : {std::pair{"Redis", redis}, std::pair{"HTTP (nginx)", http}}) {
    if (url.empty()) continue;
    auto remote = open_remote_storage({.url = url});
    if (!remote) {
      std::fprintf(stderr, "bench_remote: %s\n", remote.error().message.c_str());
      return 1;
    }
    std::shared_ptr<RemoteStorage> storage = std::move(*remote);
    const std::string tag = std::string(name).substr(0, 4);
    BlobNamespace ns;
    {  // a machine fills the remote
      auto writer = open_store(dir / ("writer-" + tag), storage);
      ns = *writer->open_namespace("shaders", {{"bench", "remote"}});
      for (std::size_t i = 0; i < blobs; ++i) writer->put(ns, key_of(i), payload_of(i, bytes));
      writer->flush();
    }
    const std::string prefix = "kiln/shaders/" + ns.id + "/";
    row(std::string(name) + " backend get", measure(blobs, [&](std::size_t i) {
          return storage->get(prefix + key_of(i).hex()).outcome == RemoteReply::kOk;
        }));
    // Another machine: empty local level; every lookup is a remote hit, checked and kept locally.
    // Each round starts with a new empty local level so that both rounds measure remote hits.
    int round = 0;
    std::unique_ptr<BlobStore> reader;
    BlobNamespace reader_ns;
    row(std::string(name) + " hit through the store (empty local level)",
        measure(
            blobs, [&](std::size_t i) { return reader->get(reader_ns, key_of(i)).has_value(); },
            [&] {
              reader.reset();
              reader = open_store(dir / ("reader-" + tag + "-" + std::to_string(round++)), storage);
              reader_ns = *reader->open_namespace("shaders", {{"bench", "remote"}});
            }));
    reader.reset();
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
