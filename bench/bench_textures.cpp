// Texture tiles, side by side with OpenImageIO. Run:
//   build/release/bench/bench_textures [work-dir] [--misses | --fetches [--rounds R]] [--threads N]
//   (--misses: only the last table; --fetches: only the tile fetch rows of the first, in R interleaved rounds)
// One 4096x4096 RGBA .tx made by maketx (64x64 tiles, zip; 64 MiB of tiles at level 0), one
// memory limit for both (16 MiB), the same pseudo-random access sequences for both, in one process:
//   tile fetch   Kiln TileReader::tile            vs  OIIO ImageCache::get_tile + tile_pixels
//   tile copy    Kiln tile + copy of its pixels   vs  OIIO ImageCache::get_pixels of that tile
//   bilinear     Kiln TextureSampler::bilinear    vs  OIIO TextureSystem::texture (no MIP, bilinear)
// each for 1, 2, 4 and 8 threads, with a working set that fits the limit (8 MiB of tiles) and one 4x
// over it (all 64 MiB of level 0). Every row runs its sequence once to warm up, then again timed.
// Then tile fetches that all miss, on one smooth 4096x4096 image written by Kiln with zip, zstd and
// raw tiles (the same files for both libraries).

#include <OpenImageIO/imagecache.h>
#include <OpenImageIO/texture.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "kiln/textures/sampler.h"
#include "kiln/textures/tile_cache.h"
#include "kiln/textures/tx_writer.h"

extern char** environ;

using namespace kiln;
using namespace kiln::textures;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kSize = 4096, kTile = 64;
constexpr float kBudgetMb = 16;

bool run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct WorkingSet {
  const char* name;
  int tiles_x, tiles_y;  // a region of level 0, from the top left
};

// xorshift: the same sequence for Kiln and OIIO, a different one per thread.
struct Rng {
  std::uint64_t s;
  std::uint32_t next() {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return std::uint32_t(s >> 16);
  }
  float unit() { return float(next() & 0xFFFFFF) / float(0x1000000); }
};

// ops/s of `body(thread, count)` run by `threads` threads at once (after a warm-up run).
double rate(int threads, std::size_t count, const std::function<void(int, std::size_t)>& body) {
  for (int pass = 0; pass < 2; ++pass) {
    std::barrier start(threads + 1);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        start.arrive_and_wait();
        body(t, count);
      });
    start.arrive_and_wait();
    const auto t0 = Clock::now();
    for (auto& th : pool) th.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (pass == 1) return double(count) * threads / seconds;
  }
  return 0;
}

std::atomic<std::uint64_t> g_sink{0};

// Kiln's rate over its 1-thread rate of the same row (all threads together: on a machine of N
// cores a rate that holds past N threads shows that hits write nothing shared).
double vs_one_thread(const std::string& row_name, int threads, double kiln) {
  static std::map<std::string, double> one_thread;
  if (threads == 1) one_thread[row_name] = kiln;
  const auto it = one_thread.find(row_name);
  return it == one_thread.end() ? 0 : kiln / it->second;  // 0: no one-thread row was run (--threads)
}

void row(const char* what, const WorkingSet& ws, int threads, double kiln, double oiio) {
  const double vs_one = vs_one_thread(std::string(what) + ws.name, threads, kiln);
  char ratio[16] = "     -";
  if (vs_one > 0) std::snprintf(ratio, sizeof ratio, "%5.2fx", vs_one);
  std::printf("| %-10s | %-16s | %d | %8.3f M/s | %s | %8.3f M/s | %5.2fx |\n", what, ws.name, threads, kiln / 1e6,
              ratio, oiio / 1e6, kiln / oiio);
  std::fflush(stdout);
}

// Tile fetches of `tx` by Kiln (TileReader::tile) and OIIO (get_tile + tile_pixels): ops/s of each.
std::pair<double, double> tile_fetch_rates(const fs::path& tx, const WorkingSet& ws, int threads, std::size_t n) {
  const std::uint64_t budget = std::uint64_t(kBudgetMb) << 20;
  TileCache cache({.memory_budget_bytes = budget});
  auto image = *cache.open(tx);
  const double kiln = rate(threads, n, [&](int t, std::size_t count) {
    TileReader reader(cache, image);
    Rng rng{0x9E3779B97F4A7C15ull * (t + 1)};
    std::uint64_t sink = 0;
    for (std::size_t i = 0; i < count; ++i) {
      auto tile = reader.tile(0, rng.next() % ws.tiles_x, rng.next() % ws.tiles_y);
      sink += (*tile)->rgba[i & 4095];
    }
    g_sink += sink;
  });
  const OIIO::ustring name(tx.string());
  OIIO::ImageCache* ic = OIIO::ImageCache::create(false);
  ic->attribute("max_memory_MB", kBudgetMb);
  const double oiio = rate(threads, n, [&](int t, std::size_t count) {
    auto* pt = ic->get_perthread_info();
    auto* handle = ic->get_image_handle(name, pt);
    Rng rng{0x9E3779B97F4A7C15ull * (t + 1)};
    std::uint64_t sink = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const int x = int(rng.next() % ws.tiles_x) * kTile, y = int(rng.next() % ws.tiles_y) * kTile;
      OIIO::ImageCache::Tile* tile = ic->get_tile(handle, pt, 0, 0, x, y, 0);
      OIIO::TypeDesc format;
      sink += static_cast<const std::uint8_t*>(ic->tile_pixels(tile, format))[i & 4095];
      ic->release_tile(tile);
    }
    g_sink += sink;
  });
  OIIO::ImageCache::destroy(ic);
  return {kiln, oiio};
}

// Fetches a thread in each row of an interleaved round: a one-thread row lasts about 0.2 s.
constexpr std::size_t kInterleavedFetches = 3'000'000;

std::string ratio_text(double ratio) {
  char text[16];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The tile fetch rows of the working set that fits, in `rounds` rounds that each run every thread
// count once. This machine's speed drifts by tens of percent from one minute to the next, more than
// the differences between thread counts; rows measured next to each other share the drift, so each
// round's ratios are compared within the round and the medians over rounds are reported.
void interleaved_fetches(const fs::path& tx, const WorkingSet& ws, const std::vector<int>& thread_counts, int rounds) {
  std::map<int, std::vector<double>> kiln, oiio, vs_one, vs_two;
  for (int round = 1; round <= rounds; ++round) {
    std::map<int, double> this_round;
    std::printf("round %d:", round);
    for (int threads : thread_counts) {
      const auto [k, o] = tile_fetch_rates(tx, ws, threads, kInterleavedFetches);
      this_round[threads] = k;
      kiln[threads].push_back(k);
      oiio[threads].push_back(o);
      std::printf(" %dT %.1f M/s (OIIO %.1f)", threads, k / 1e6, o / 1e6);
      std::fflush(stdout);
    }
    std::printf("\n");
    for (int threads : thread_counts) {
      if (this_round.count(1)) vs_one[threads].push_back(this_round[threads] / this_round[1]);
      if (this_round.count(2)) vs_two[threads].push_back(this_round[threads] / this_round[2]);
    }
  }
  std::printf(
      "\nMedians over %d rounds, tile fetch, %s; the ratios are taken within each round:\n\n"
      "| threads | Kiln | vs 1 thread | vs 2 threads (lowest round) | OIIO | Kiln/OIIO |\n|---|---|---|---|---|---|\n",
      rounds, ws.name);
  for (int threads : thread_counts) {
    const auto& two = vs_two[threads];
    const std::string one_text = vs_one[threads].empty() ? "-" : ratio_text(median(vs_one[threads]));
    const std::string two_text =
        two.empty() ? "-"
                    : ratio_text(median(two)) + " (" + ratio_text(*std::min_element(two.begin(), two.end())) + ")";
    std::printf("| %d | %.1f M/s | %s | %s | %.2f M/s | %.2fx |\n", threads, median(kiln[threads]) / 1e6,
                one_text.c_str(), two_text.c_str(), median(oiio[threads]) / 1e6,
                median(kiln[threads]) / median(oiio[threads]));
  }
}

// A 4096x4096 RGBA8 image that compresses about as a painted texture does: smooth waves, a little
// grain.
Image smooth_image() {
  Image image{kSize, kSize, 4, std::vector<std::uint8_t>(std::size_t(kSize) * kSize * 4)};
  Rng rng{12345};
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x)
      for (int c = 0; c < 4; ++c) {
        const double wave = std::sin(x / (23.0 + 7 * c)) * std::cos(y / (31.0 + 5 * c)) + std::sin((x + y) / 97.0);
        const int v = int(128 + 55 * wave) + int(rng.next() & 7);
        image.pixels[(std::size_t(y) * kSize + x) * 4 + c] = std::uint8_t(std::clamp(v, 0, 255));
      }
  return image;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool misses_only = std::erase(args, "--misses") > 0;
  // --fetches: the tile fetch rows alone (the ones most sensitive to what else the machine runs).
  const bool fetches_only = std::erase(args, "--fetches") > 0;
  int rounds = 7;
  if (auto it = std::find(args.begin(), args.end(), "--rounds"); it != args.end() && it + 1 != args.end()) {
    rounds = std::max(1, std::atoi((it + 1)->c_str()));
    args.erase(it, it + 2);
  }
  // --threads N: that many threads only, instead of 1, 2, 4 and 8 (for a profile of one row).
  std::vector<int> thread_counts = {1, 2, 4, 8};
  if (auto it = std::find(args.begin(), args.end(), "--threads"); it != args.end() && it + 1 != args.end()) {
    thread_counts = {std::max(1, std::atoi((it + 1)->c_str()))};
    args.erase(it, it + 2);
  }
  const fs::path dir = !args.empty() ? fs::path(args[0]) : fs::temp_directory_path() / "kiln-bench-textures";
  fs::create_directories(dir);
  const fs::path src = dir / "big.tif", tx = dir / "big.tx";
  if (!fs::exists(tx)) {
    std::printf("making %s (oiiotool + maketx)...\n", tx.c_str());
    if (!run({"/usr/bin/oiiotool", "--pattern", "noise:type=uniform",
              std::to_string(kSize) + "x" + std::to_string(kSize), "4", "-d", "uint8", "-o", src.string()}) ||
        !run({"/usr/bin/maketx", src.string(), "-o", tx.string()})) {
      std::fprintf(stderr, "bench_textures: cannot make the test texture\n");
      return 1;
    }
  }
  const std::uint64_t budget = std::uint64_t(kBudgetMb) << 20;
  const WorkingSet sets[] = {{"fits (8 MiB)", 32, 16}, {"4x over (64 MiB)", kSize / kTile, kSize / kTile}};
  if (fetches_only) {
    std::printf("%s; memory limit %.0f MiB for both; OIIO %s; %u hardware threads; %zu fetches a thread a row\n\n",
                tx.c_str(), double(kBudgetMb), OIIO_VERSION_STRING, std::thread::hardware_concurrency(),
                kInterleavedFetches);
    interleaved_fetches(tx, sets[0], thread_counts, rounds);
    return g_sink == 42 ? 1 : 0;
  }
  std::printf("%s, %dx%d RGBA8, 64x64 tiles; memory limit %.0f MiB for both; OIIO %s; %u hardware threads\n\n",
              tx.c_str(), kSize, kSize, double(kBudgetMb), OIIO_VERSION_STRING, std::thread::hardware_concurrency());
  std::printf(
      "| lookup     | working set   | threads | Kiln | Kiln vs 1 thread | OIIO | Kiln/OIIO |\n"
      "|---|---|---|---|---|---|---|\n");

  const OIIO::ustring name(tx.string());
  for (const WorkingSet& ws : sets) {
    if (misses_only) break;
    const bool fits = ws.tiles_x * ws.tiles_y * kTile * kTile * 4 <= int(budget);
    for (int threads : thread_counts) {
      // Tile fetches.
      {
        // 10,000,000 fits lookups a thread: at 2,000,000 a one-thread row lasted 0.08 s and
        // measured the machine's noise more than the cache (--fetches interleaves shorter rows).
        const auto [kiln, oiio] = tile_fetch_rates(tx, ws, threads, fits ? 10'000'000 : 20'000);
        row("tile fetch", ws, threads, kiln, oiio);
      }
      // Tile copies: the pixels of one tile into the caller's buffer.
      {
        const std::size_t n = fits ? 300'000 : 20'000;
        TileCache cache({.memory_budget_bytes = budget});
        auto image = *cache.open(tx);
        const double kiln = rate(threads, n, [&](int t, std::size_t count) {
          TileReader reader(cache, image);
          Rng rng{0x9E3779B97F4A7C15ull * (t + 1)};
          std::vector<std::uint8_t> buffer(kTile * kTile * 4);
          for (std::size_t i = 0; i < count; ++i) {
            auto tile = reader.tile(0, rng.next() % ws.tiles_x, rng.next() % ws.tiles_y);
            std::memcpy(buffer.data(), (*tile)->rgba.data(), buffer.size());
          }
          g_sink += buffer[7];
        });
        OIIO::ImageCache* ic = OIIO::ImageCache::create(false);
        ic->attribute("max_memory_MB", kBudgetMb);
        const double oiio = rate(threads, n, [&](int t, std::size_t count) {
          auto* pt = ic->get_perthread_info();
          auto* handle = ic->get_image_handle(name, pt);
          Rng rng{0x9E3779B97F4A7C15ull * (t + 1)};
          std::vector<std::uint8_t> buffer(kTile * kTile * 4);
          for (std::size_t i = 0; i < count; ++i) {
            const int x = int(rng.next() % ws.tiles_x) * kTile, y = int(rng.next() % ws.tiles_y) * kTile;
            ic->get_pixels(handle, pt, 0, 0, x, x + kTile, y, y + kTile, 0, 1, 0, 4, OIIO::TypeDesc::UINT8,
                           buffer.data());
          }
          g_sink += buffer[7];
        });
        OIIO::ImageCache::destroy(ic);
        row("tile copy", ws, threads, kiln, oiio);
      }
      // Bilinear lookups at random points of the working set.
      {
        const std::size_t n = fits ? 2'000'000 : 40'000;
        const float s_max = float(ws.tiles_x * kTile) / kSize, t_max = float(ws.tiles_y * kTile) / kSize;
        TileCache cache({.memory_budget_bytes = budget});
        auto image = *cache.open(tx);
        const double kiln = rate(threads, n, [&](int t, std::size_t count) {
          TextureSampler sampler(cache, image, {.wrap_s = WrapMode::Clamp, .wrap_t = WrapMode::Clamp});
          Rng rng{0x9E3779B97F4A7C15ull * (t + 1)};
          float sum = 0;
          for (std::size_t i = 0; i < count; ++i) sum += (*sampler.bilinear(rng.unit() * s_max, rng.unit() * t_max))[0];
          g_sink += std::uint64_t(sum);
        });
        OIIO::TextureSystem* ts = OIIO::TextureSystem::create(false);
        ts->attribute("max_memory_MB", kBudgetMb);
        const double oiio = rate(threads, n, [&](int t, std::size_t count) {
          auto* pt = ts->get_perthread_info();
          auto* handle = ts->get_texture_handle(name, pt);
          OIIO::TextureOpt opt;
          opt.mipmode = OIIO::TextureOpt::MipModeNoMIP;
          opt.interpmode = OIIO::TextureOpt::InterpBilinear;
          opt.swrap = opt.twrap = OIIO::TextureOpt::WrapClamp;
          Rng rng{0x9E3779B97F4A7C15ull * (t + 1)};
          float sum = 0, result[4];
          for (std::size_t i = 0; i < count; ++i) {
            ts->texture(handle, pt, opt, rng.unit() * s_max, rng.unit() * t_max, 0, 0, 0, 0, 4, result);
            sum += result[0];
          }
          g_sink += std::uint64_t(sum);
        });
        OIIO::TextureSystem::destroy(ts);
        row("bilinear", ws, threads, kiln, oiio);
      }
    }
  }

  // Misses by how the tiles are stored: one image written by Kiln three ways, read by both.
  std::printf("\nTile fetch, every lookup a miss (64 MiB of tiles, 16 MiB limit), by how Kiln stored the tiles:\n\n");
  std::printf(
      "| tiles | file | threads | Kiln | Kiln vs 1 thread | OIIO | Kiln/OIIO |\n|---|---|---|---|---|---|---|\n");
  const WorkingSet all = {"4x over (64 MiB)", kSize / kTile, kSize / kTile};
  std::optional<Image> smooth;
  for (TileCompression compression : {TileCompression::kZip, TileCompression::kZstd, TileCompression::kNone}) {
    const fs::path written = dir / (std::string("smooth-") + compression_name(compression) + ".tx");
    if (!fs::exists(written)) {
      if (!smooth) smooth = smooth_image();
      TxWriteOptions options;
      options.settings.color_space = ColorSpace::kLinear;
      options.settings.compression = compression;
      if (auto status = write_tx(*smooth, written, options); !status) {
        std::fprintf(stderr, "bench_textures: %s\n", status.error().message.c_str());
        return 1;
      }
    }
    // About two seconds a row: a raw miss costs a few microseconds, and a row of a fraction of a
    // second measured thread start-up and the machine's noise more than the misses.
    const std::size_t n = compression == TileCompression::kNone ? 400'000 : 40'000;
    for (int threads : thread_counts) {
      const auto [kiln, oiio] = tile_fetch_rates(written, all, threads, n);
      std::printf("| %-5s | %5.1f MiB | %d | %8.1f k/s | %5.2fx | %8.1f k/s | %5.2fx |\n",
                  compression_name(compression), double(fs::file_size(written)) / (1 << 20), threads, kiln / 1e3,
                  vs_one_thread(std::string("miss ") + compression_name(compression), threads, kiln), oiio / 1e3,
                  kiln / oiio);
      std::fflush(stdout);
    }
  }
  return g_sink == 42 ? 1 : 0;  // keeps the work observable
}
