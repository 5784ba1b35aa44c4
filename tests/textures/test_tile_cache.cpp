#include <doctest/doctest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <fstream>
#include <thread>

#include "kiln/textures/sampler.h"
#include "kiln/textures/tile_cache.h"
#include "temp_dir.h"
#include "tx_fixtures.h"

using namespace kiln;
using namespace kiln::textures;
using kiln::test::make_tx;
namespace fs = std::filesystem;

TEST_SUITE("textures") {
  TEST_CASE("tiles through the cache are the file's tiles - a second request is a hit") {
    test::TempDir dir("tiles");
    const fs::path tx = make_tx(dir, "img", 200, 130, 4);
    TileCache cache({.memory_budget_bytes = 8 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    auto direct = TxFile::open(tx);
    REQUIRE(direct);
    for (std::size_t level = 0; level < 3; ++level) {
      const TxLevel& l = (*image)->info().levels[level];
      for (std::uint32_t ty = 0; ty < l.tiles_y(); ++ty)
        for (std::uint32_t tx_ = 0; tx_ < l.tiles_x(); ++tx_) {
          auto t = cache.tile(**image, level, tx_, ty);
          REQUIRE_MESSAGE(t, t.error().message);
          CHECK((*t)->rgba == *(*direct)->read_tile_rgba8(level, tx_, ty));
        }
    }
    const auto loads = cache.stats().tiles.loads;
    REQUIRE(cache.tile(**image, 0, 1, 1));
    CHECK(cache.stats().tiles.loads == loads);
    const auto s = cache.stats();
    CHECK(s.reads_per_level.at(0) == 4 * 3);  // 200x130 in 64x64 tiles
    CHECK(s.hits_at(0) == 1);
    CHECK(s.redundant_reads == 0);
    CHECK(s.read_ns > 0);
    CHECK(cache.stats().tiles.l1_hits + cache.stats().tiles.l2_hits >= 1);
    CHECK((*cache.open(tx)).get() == (*image).get());  // unchanged file: the same image
  }

  TEST_CASE("a file overwritten on disk is a new image - its old tiles are never served") {
    test::TempDir dir("tiles");
    const fs::path a = make_tx(dir, "a", 128, 128, 3), b = make_tx(dir, "b", 128, 128, 1);
    const fs::path live = dir / "live.tx";
    fs::copy_file(a, live);
    TileCache cache({.memory_budget_bytes = 8 << 20});
    auto first = cache.open(live);
    REQUIRE(first);
    auto old_tile = *cache.tile(**first, 0, 0, 0);
    fs::copy_file(b, live, fs::copy_options::overwrite_existing);  // what an export tool does
    auto second = cache.open(live);
    REQUIRE(second);
    CHECK((*second)->id() != (*first)->id());
    CHECK((*second)->info().channels == 1);
    auto new_tile = *cache.tile(**second, 0, 0, 0);
    CHECK(new_tile->rgba == *(*TxFile::open(b))->read_tile_rgba8(0, 0, 0));
    CHECK(new_tile->rgba != old_tile->rgba);
    CHECK(cache.invalidate(live) == 1);
    CHECK(cache.invalidate(live) == 0);
  }

  TEST_CASE("a reader opened for an image refuses the file that replaced it on disk - even without invalidate") {
    test::TempDir dir("tiles");
    const fs::path a = make_tx(dir, "a", 128, 128, 3), b = make_tx(dir, "b", 128, 128, 3);
    const fs::path live = dir / "live.tx";
    fs::copy_file(a, live);
    TileCache cache({.memory_budget_bytes = 8 << 20});
    auto image = cache.open(live);
    REQUIRE(image);
    REQUIRE(TileCache::open_file(**image));  // the file is still the image's
    // Replaced whole (a rename over it, as an export tool's atomic save does): same
    // dimensions, another file. Nobody told the cache.
    const fs::path staged = dir / "staged.tx";
    fs::copy_file(b, staged);
    fs::rename(staged, live);
    auto reader = TileCache::open_file(**image);
    REQUIRE_FALSE(reader);
    CHECK(reader.error().message == live.string() + ": changed on disk or invalidated; open it again");
  }

  TEST_CASE("an invalidated image serves no tile - not even through the reader it already holds") {
    test::TempDir dir("tiles");
    const fs::path a = make_tx(dir, "a", 256, 256, 3), b = make_tx(dir, "b", 256, 256, 3);
    const fs::path live = dir / "live.tx";
    fs::copy_file(a, live);
    TileCache cache({.memory_budget_bytes = 8 << 20});
    auto image = cache.open(live);
    REQUIRE(image);
    REQUIRE(cache.tile(**image, 0, 0, 0));  // a reader of the old file now waits in the image's pool
    fs::copy_file(b, live, fs::copy_options::overwrite_existing);
    CHECK(cache.invalidate(live) == 1);
    auto tile = cache.tile(**image, 0, 1, 0);  // not read before
    REQUIRE_FALSE(tile);
    CHECK(tile.error().message == live.string() + ": changed on disk or invalidated; open it again");
  }

  TEST_CASE("a tile that fails to read is remembered until the file changes") {
    test::TempDir dir("tiles");
    const fs::path good = make_tx(dir, "g", 256, 256, 3);
    std::string bytes;
    {
      std::ifstream in(good, std::ios::binary);
      bytes.assign((std::istreambuf_iterator<char>(in)), {});
    }
    // Corrupt the middle of the file: the directories (at its end) survive, some tiles do not.
    const fs::path broken = dir / "broken.tx";
    for (std::size_t i = bytes.size() / 4; i < bytes.size() / 2; ++i) bytes[i] = static_cast<char>(0xA5);
    std::ofstream(broken, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    TileCache cache({.memory_budget_bytes = 8 << 20});
    auto image = cache.open(broken);
    REQUIRE_MESSAGE(image, image.error().message);
    std::uint32_t bad_x = 0, bad_y = 0;
    bool found = false;
    const TxLevel& l = (*image)->info().levels[0];
    for (std::uint32_t ty = 0; ty < l.tiles_y() && !found; ++ty)
      for (std::uint32_t tx_ = 0; tx_ < l.tiles_x() && !found; ++tx_)
        if (!cache.tile(**image, 0, tx_, ty)) {
          bad_x = tx_;
          bad_y = ty;
          found = true;
        }
    REQUIRE(found);
    const auto loads = cache.stats().tiles.loads;
    auto again = cache.tile(**image, 0, bad_x, bad_y);
    REQUIRE_FALSE(again);
    CHECK(again.error().message.find("broken.tx") != std::string::npos);
    CHECK(cache.stats().tiles.loads == loads);  // remembered: not read again
    CHECK(cache.remembered_failures() >= 1);
    fs::copy_file(good, broken, fs::copy_options::overwrite_existing);  // the artist re-exports
    auto fixed = cache.open(broken);
    REQUIRE(fixed);
    CHECK(cache.tile(**fixed, 0, bad_x, bad_y));
    CHECK(cache.remembered_failures() == 0);
  }

  TEST_CASE("the automatic texture budget is 1/16 of memory within a floor and a ceiling") {
    CHECK(auto_texture_budget(std::uint64_t{24} << 30) == std::uint64_t{1536} << 20);
    CHECK(auto_texture_budget(std::uint64_t{512} << 20) == std::uint64_t{64} << 20);
    CHECK(auto_texture_budget(std::uint64_t{256} << 30) == std::uint64_t{2} << 30);
    CHECK(physical_memory_bytes() > 0);
    CHECK(TileCache().budget_bytes() == auto_texture_budget(physical_memory_bytes()));
  }
}

TEST_SUITE("textures/concurrent") {
  TEST_CASE("eight threads asking for one tile load it once") {
    test::TempDir dir("tiles");
    const fs::path tx = make_tx(dir, "img", 256, 256, 3);
    TileCache cache({.memory_budget_bytes = 8 << 20});
    auto image = cache.open(tx);
    REQUIRE(image);
    std::barrier start(8);
    std::vector<std::thread> threads;
    std::vector<const Tile*> seen(8);
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        auto tile = cache.tile(**image, 0, 2, 3);
        REQUIRE(tile);
        seen[t] = tile->get();
      });
    for (auto& t : threads) t.join();
    CHECK(cache.stats().tiles.loads == 1);
    for (auto* p : seen) CHECK(p == seen[0]);
  }

  TEST_CASE("the budget holds while two threads stream an image four times larger than it") {
    test::TempDir dir("tiles");
    const fs::path tx = make_tx(dir, "big", 1024, 1024, 4);  // level 0: 256 tiles of 16 KiB = 4 MiB
    constexpr std::uint64_t kBudget = 1 << 20;
    constexpr std::size_t kL1 = 16;
    TileCache cache({.memory_budget_bytes = kBudget, .l1_entries = kL1});
    auto image = cache.open(tx);
    REQUIRE(image);
    auto reference = TxFile::open(tx);
    REQUIRE(reference);
    const auto expected = *(*reference)->read_tile_rgba8(0, 5, 7);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        const TxLevel& l = (*image)->info().levels[0];
        for (int pass = 0; pass < 2; ++pass)
          for (std::uint32_t ty = 0; ty < l.tiles_y(); ++ty)
            for (std::uint32_t i = 0; i < l.tiles_x(); ++i) {
              const std::uint32_t tx_ = t == 0 ? i : l.tiles_x() - 1 - i;  // the threads cross paths
              auto tile = cache.tile(**image, 0, tx_, ty);
              if (!tile)
                ++wrong;
              else if (tx_ == 5 && ty == 7 && (*tile)->rgba != expected)
                ++wrong;
            }
      });
    for (auto& t : threads) t.join();
    CHECK(wrong == 0);
    const auto s = cache.stats();
    const std::uint64_t tile_bytes = 64 * 64 * 4 + sizeof(Tile);
    // Over the budget only what is pinned: each thread's level 1, the tile it holds, one in flight.
    CHECK(s.tiles.peak_bytes <= kBudget + 2 * (kL1 + 2) * tile_bytes);
    CHECK(s.tiles.evictions > 0);
    CHECK(s.tiles.loads >= 256);  // the image does not fit: tiles are loaded again on the second pass
    CHECK(s.redundant_reads == s.reads_per_level.at(0) - 256);  // every read past the first of a tile
    CHECK(s.open_files >= 1);
  }

  TEST_CASE("samplers on two threads see an overwrite as a stale image - never the old tiles") {
    test::TempDir dir("tiles");
    const fs::path tx = make_tx(dir, "live", 512, 512, 4);
    const fs::path other = make_tx(dir, "other", 512, 512, 3);
    TileCache cache({.memory_budget_bytes = 1 << 20, .l1_entries = 4});
    auto first = cache.open(tx);
    REQUIRE(first);
    std::atomic<bool> stop{false};
    std::atomic<int> wrong{0}, stale_seen{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 2; ++t)
      readers.emplace_back([&, t] {
        auto image = *cache.open(tx);
        for (int i = 0; !stop; ++i) {
          TextureSampler sampler(cache, image);
          for (int k = 0; k < 200; ++k) {
            auto c = sampler.bilinear(float((i * 37 + k * 11 + t) % 512) / 512, float((k * 29) % 512) / 512);
            if (c) continue;
            if (c.error().message.find("open it again") == std::string::npos) ++wrong;
            ++stale_seen;
            auto reopened = cache.open(tx);
            if (!reopened)
              ++wrong;
            else
              image = *reopened;
            break;
          }
        }
        cache.release_this_thread();
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    fs::copy_file(other, dir / "swap.tx");
    fs::rename(dir / "swap.tx", tx);  // overwritten the way tools write: temp file + rename
    auto reopened = cache.open(tx);
    REQUIRE(reopened);
    CHECK((*reopened)->info().channels == 3);
    CHECK((*first)->stale());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
    for (auto& r : readers) r.join();
    CHECK(wrong == 0);
    CHECK(stale_seen >= 1);  // the readers noticed and moved to the new file
  }
}
