#pragma once
// TileCache: texture tiles streamed from .tx files through engine/cache's TwoLevelCache (seed
// image-tile-cache.txt): a per-thread first level read without locks, a global level under a
// memory budget, single-flight loads with no lock held while libtiff decodes, so different tiles
// (also of one file) load in parallel and threads wait only for the tile they need.
//
// An image is identified by its path and the file's size, modification time and inode: a file
// overwritten on disk is a new image whose tiles never mix with the old ones; invalidate(path)
// drops an image's tiles at once. A tile that failed to read is remembered (its error, not
// pixels: nothing charged to the budget) until the file changes or is invalidated, so a broken
// file costs one failed read per tile, not one per request.
//
// Thread-safety: every member function may be called from any thread.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "kiln/cache/two_level_cache.h"
#include "kiln/textures/tx_file.h"

namespace kiln::textures {

struct Tile {
  std::uint32_t width = 0, height = 0;  // the tile size of its level (edge tiles are padded)
  std::vector<std::uint8_t> rgba;       // width * height * 4
};

// A .tx file as the cache knows it: every level's size and tile grid, no pixels.
class TiledImage {
 public:
  const std::filesystem::path& path() const { return path_; }
  const TxInfo& info() const { return info_; }
  std::uint64_t id() const { return id_; }

 private:
  friend class TileCache;
  std::filesystem::path path_;
  TxInfo info_;
  std::uint64_t id_ = 0;
  std::uint64_t size_ = 0, mtime_ns_ = 0, inode_ = 0;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<TxFile>> pool_;  // libtiff handles not in use: one per concurrent reader
};

// The default budget: 1/16 of physical memory, at least 64 MiB and at most 2 GiB — room for the
// working set of a scene without crowding out everything else the process allocates.
std::uint64_t auto_texture_budget(std::uint64_t physical_bytes);
std::uint64_t physical_memory_bytes();

struct TileCacheOptions {
  std::uint64_t memory_budget_bytes = 0;  // 0: auto_texture_budget(physical memory)
  std::size_t l1_entries = 16;            // tiles per thread without a lock
};

class TileCache {
 public:
  explicit TileCache(TileCacheOptions options = {});

  // The image at `path`, reopened if the file changed on disk since it was last opened.
  Result<std::shared_ptr<TiledImage>> open(const std::filesystem::path& path);
  // Tile (tx, ty) of `level`, pinned while the caller holds it.
  Result<cache::Pinned<Tile>> tile(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty);
  // Drops every tile of the image at `path` (and the image: the next open reads the file again).
  std::size_t invalidate(const std::filesystem::path& path);

  cache::TwoLevelCacheStats stats() const { return tiles_.stats(); }
  std::uint64_t remembered_failures() const;
  std::uint64_t budget_bytes() const { return budget_; }

 private:
  struct Key {
    std::uint64_t image;
    std::uint32_t level, tx, ty;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::uint64_t>{}(k.image * 0x9E3779B97F4A7C15ull ^ (std::uint64_t(k.level) << 48) ^
                                        (std::uint64_t(k.tx) << 24) ^ k.ty);
    }
  };

  std::size_t forget(const TiledImage& image);  // its tiles and remembered failures

  std::uint64_t budget_;
  cache::TwoLevelCache<Key, Tile, KeyHash> tiles_;
  mutable std::mutex images_mu_;  // guards images_ and failures_
  std::map<std::filesystem::path, std::shared_ptr<TiledImage>> images_;
  std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::string> failures_;
  // failures_.size(), readable without the lock: a tile request looks at failures_ only when there
  // are any, so a hit stays lock-free.
  std::atomic<std::size_t> failure_count_{0};
  std::uint64_t next_id_ = 1;
};

}  // namespace kiln::textures
