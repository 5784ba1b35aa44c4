// Shader variants, side by side with the naive pipeline. Run:
//   build/release/bench/bench_shaders [assets-dir]
// 1. cold: every sample variant compiled in this process (glslang initialised once), against one
//    `glslangValidator -V` process per stage of every variant — the naive pipeline;
// 2. warm: the same variants loaded from the persistent store by a fresh library;
// 3. hits: ns per ShaderLibrary::variant() hit, 1 and 2 threads; the cache's hits and a material's
//    VariantHandle check at 1, 2, 4 and 8 threads.

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "kiln/materials/material.h"
#include "kiln/shadercache/shader_library.h"

extern char** environ;

using namespace kiln;
using namespace kiln::shadercache;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Request {
  std::string shader, pass;
  std::vector<std::string> keywords;
};

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t quiet;  // glslangValidator names each file it compiles on stdout
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  const int rc = posix_spawn(&pid, args[0], &quiet, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path assets = argc > 1 ? fs::path(argv[1]) : fs::path(KILN_SOURCE_DIR) / "assets";
  std::string tmp_pattern = (fs::temp_directory_path() / "kiln-bench-shaders-XXXXXX").string();
  const fs::path tmp = ::mkdtemp(tmp_pattern.data());

  // The variants the sample materials use, in every pass of their shaders.
  std::vector<Request> requests;
  {
    ShaderLibrary probe({.root = assets});
    for (const auto& entry : fs::directory_iterator(assets / "materials")) {
      auto m = materials::load_material(entry.path().string());
      if (!m) return std::fprintf(stderr, "%s\n", m.error().message.c_str()), 1;
      auto p = probe.program(m->shader);
      if (!p) return std::fprintf(stderr, "%s\n", p.error().message.c_str()), 1;
      for (const auto& pass : (*p)->declaration.passes) requests.push_back({m->shader, pass, m->keywords});
    }
  }

  auto store = std::move(*cache::BlobStore::open({.root = tmp / "cache"}));
  const auto cold_start = Clock::now();
  std::size_t stages = 0;
  {
    ShaderLibrary cold({.root = assets, .store = store.get()});
    for (const auto& r : requests) {
      auto v = cold.variant(r.shader, r.pass, r.keywords);
      if (!v) return std::fprintf(stderr, "%s\n", v.error().message.c_str()), 1;
      stages += (*v)->stages.size();
    }
  }
  const double cold_ms = ms_since(cold_start);
  store->flush();

  // The cost of isolation: the same compiles without a store, on a large-stack thread each, then
  // in kiln-shader-worker processes as the tools run them. Round 1 includes starting the worker and
  // glslang's first-use set-up in it; round 2 recompiles everything after an edit of every file
  // (the steady state of a cook or an editor session).
  struct Rounds {
    double first_ms = 0, second_ms = 0;
  };
  auto compile_all = [&](const CompileIsolation& isolation) {
    ShaderLibrary library({.root = assets, .isolation = isolation});
    auto round = [&] {
      const auto start = Clock::now();
      for (const auto& r : requests)
        if (auto v = library.variant(r.shader, r.pass, r.keywords); !v) {
          std::fprintf(stderr, "%s\n", v.error().message.c_str());
          std::exit(1);
        }
      return ms_since(start);
    };
    Rounds rounds;
    rounds.first_ms = round();
    for (const auto& entry : fs::recursive_directory_iterator(assets / "shaders")) library.file_changed(entry.path());
    rounds.second_ms = round();
    return rounds;
  };
  const Rounds thread = compile_all({.mode = CompileIsolation::Mode::kThread});
  const Rounds worker = compile_all({.mode = CompileIsolation::Mode::kProcess, .worker = KILN_SHADER_WORKER});

  // The naive pipeline: one glslangValidator process per stage of every variant.
  const auto naive_start = Clock::now();
  {
    ShaderLibrary probe({.root = assets});
    for (const auto& r : requests) {
      auto p = probe.program(r.shader);
      for (const auto& file : (*p)->stage_files) {
        std::vector<std::string> args = {"/usr/bin/glslangValidator", "-V", "-o", (tmp / "out.spv").string()};
        for (const auto& k : r.keywords) args.push_back("-D" + k + "=1");
        if ((*p)->declaration.declares_passes) args.push_back("-D" + materials::pass_define(r.pass) + "=1");
        args.push_back((assets / file).string());
        if (run(args) != 0) return std::fprintf(stderr, "glslangValidator failed on %s\n", file.c_str()), 1;
      }
    }
  }
  const double naive_ms = ms_since(naive_start);

  const auto warm_start = Clock::now();
  ShaderLibrary warm({.root = assets, .store = store.get()});
  for (const auto& r : requests)
    if (!warm.variant(r.shader, r.pass, r.keywords)) return 1;
  const double warm_ms = ms_since(warm_start);
  if (warm.stats().compiles != 0) return std::fprintf(stderr, "warm run compiled\n"), 1;

  // Hits: every thread cycles over all requests of the warm library.
  auto hits = [&](int threads) {
    constexpr int kRounds = 20000;
    std::vector<std::thread> pool;
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int i = 0; i < kRounds; ++i) {
          const Request& r = requests[(i + t) % requests.size()];
          if (!warm.variant(r.shader, r.pass, r.keywords)) std::abort();
        }
      });
    for (auto& th : pool) th.join();
    return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / (double(kRounds) * threads);
  };
  const double hit1 = hits(1), hit2 = hits(2);
  // The cache alone: VariantCache::get_or_compile (a pinned handle) and borrow_or_compile (a
  // borrowed pointer) with prebuilt keys, every thread over every key, at 1, 2, 4 and 8 threads.
  std::vector<materials::VariantKey> keys;
  for (const auto& r : requests) keys.push_back(warm.key(r.shader, r.pass, r.keywords));
  auto cache_hits = [&](int threads, bool borrowed) {
    constexpr int kRounds = 2000000;  // tens of milliseconds per thread: thread start-up is noise
    std::vector<std::thread> pool;
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int i = 0; i < kRounds; ++i) {
          const auto& key = keys[(i + t) % keys.size()];
          const bool ok =
              borrowed ? bool(warm.cache().borrow_or_compile(key, {})) : bool(warm.cache().get_or_compile(key, {}));
          if (!ok) std::abort();
        }
      });
    for (auto& th : pool) th.join();
    // Aggregate hits per second of all threads together.
    return double(kRounds) * threads / std::chrono::duration<double>(Clock::now() - start).count();
  };
  const int kThreadCounts[] = {1, 2, 4, 8};
  std::vector<double> pinned_rates, borrowed_rates;
  for (int n : kThreadCounts) pinned_rates.push_back(cache_hits(n, false));
  for (int n : kThreadCounts) borrowed_rates.push_back(cache_hits(n, true));
  const double cache_hit1 = 1e9 / pinned_rates[0], cache_hit2 = 2e9 / pinned_rates[1];
  // A material's variant handle: resolved once per thread (a thread's materials), then the per-draw
  // check, ShaderLibrary::current().
  auto handle_checks = [&](int threads) {
    constexpr int kRounds = 20000000;
    std::vector<std::thread> pool;
    std::atomic<std::uint64_t> sink{0};
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::vector<VariantHandle> handles;
        for (const auto& r : requests) handles.push_back(*warm.resolve(r.shader, r.pass, r.keywords));
        std::uint64_t local = 0;
        for (int i = 0; i < kRounds; ++i) {
          auto v = warm.current(handles[(i + t) % handles.size()]);
          local += reinterpret_cast<std::uintptr_t>(*v) & 1;
        }
        sink += local;
      });
    for (auto& th : pool) th.join();
    if (sink == 42) std::printf(" ");
    return double(kRounds) * threads / std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::vector<double> handle_rates;
  for (int n : kThreadCounts) handle_rates.push_back(handle_checks(n));

  std::printf("variants: %zu (%zu stages) from %s/materials\n", requests.size(), stages, assets.c_str());
  std::printf("cold, in process (incl. glslang init): %8.1f ms  (%.2f ms per variant)\n", cold_ms,
              cold_ms / requests.size());
  std::printf("no store, large-stack thread:          %8.1f ms round 1, %.1f ms round 2 (%.2f ms per variant)\n",
              thread.first_ms, thread.second_ms, thread.second_ms / requests.size());
  std::printf("no store, worker process:              %8.1f ms round 1, %.1f ms round 2 (%.2f ms per variant)\n",
              worker.first_ms, worker.second_ms, worker.second_ms / requests.size());
  std::printf("  ratio worker / thread, round 2:      %8.2fx\n", worker.second_ms / thread.second_ms);
  std::printf("cold, glslangValidator per stage:      %8.1f ms  (%.2f ms per variant)\n", naive_ms,
              naive_ms / requests.size());
  std::printf("  ratio naive / in-process:            %8.1fx\n", naive_ms / cold_ms);
  std::printf("warm, disk hits (fresh library):       %8.1f ms  (%.3f ms per variant)\n", warm_ms,
              warm_ms / requests.size());
  std::printf("  ratio cold in-process / warm:        %8.1fx\n", cold_ms / warm_ms);
  std::printf(
      "hit, ShaderLibrary::variant():         %8.0f ns (1 thread), %.0f ns wall per op per thread (2 threads)\n", hit1,
      hit2);
  std::printf(
      "hit, VariantCache::get_or_compile():   %8.0f ns (1 thread), %.0f ns wall per op per thread (2 threads)\n",
      cache_hit1, cache_hit2);
  std::printf("check, a material's VariantHandle:      %8.2f ns (1 thread)\n", 1e9 / handle_rates[0]);
  for (int pass = 0; pass < 3; ++pass) {
    const auto& rates = pass == 0 ? pinned_rates : pass == 1 ? borrowed_rates : handle_rates;
    std::printf("%-32s", pass == 0   ? "hits, get_or_compile (pinned):"
                         : pass == 1 ? "hits, borrow_or_compile:"
                                     : "checks, VariantHandle:");
    for (std::size_t i = 0; i < rates.size(); ++i)
      std::printf("  %dT %6.1f M/s (%.2fx)", kThreadCounts[i], rates[i] / 1e6, rates[i] / rates[0]);
    std::printf("\n");
  }
  store.reset();
  fs::remove_all(tmp);
  return 0;
}
