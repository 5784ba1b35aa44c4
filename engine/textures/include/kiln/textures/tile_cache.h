#pragma once
// TileCache: texture tiles streamed from .tx files through engine/cache's TwoLevelCache: a
// per-thread first level read without locks, a global level under a memory budget, single-flight
// loads with no lock held while libtiff decodes, so different tiles (also of one file) load in
// parallel and threads wait only for the tile they need.
//
// An image is identified by its path and the file's size, modification time and inode: a file
// overwritten on disk is a new image whose tiles never mix with the old ones; invalidate(path)
// drops an image's tiles at once. A tile that failed to read is remembered (its error, not
// pixels: nothing charged to the budget) until the file changes or is invalidated, so a broken
// file costs one failed read per tile, not one per request.
//
// Plain (untiled) images share the budget without load/unload thrash: open_texture() converts a
// source without a current .tx once into a .tx in the cache store (tx_store.h; keyed by the source's
// identity, so later runs reuse it) and streams that entry like any .tx. Two large plain images used in turn then
// cost tile reads of what is sampled, never a whole-image decode per switch.
//
// A constant image (maketx's oiio:ConstantColor) is served from one tile, whatever is asked.
//
// Thread-safety: every TileCache member function may be called from any thread. TileReader is
// owned by one thread.

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kiln/cache/blob_store.h"
#include "kiln/cache/two_level_cache.h"
#include "kiln/textures/image.h"
#include "kiln/textures/tx_file.h"

namespace kiln::textures {

inline constexpr std::size_t kMaxLevels = 32;

struct Tile {
  std::uint32_t width = 0, height = 0;  // the tile size of its level (edge tiles are padded)
  TileBytes rgba;                       // width * height * 4
  const std::uint8_t* texel(std::uint32_t x, std::uint32_t y) const { return &rgba[(std::size_t(y) * width + x) * 4]; }
};

// A .tx file as the cache knows it: every level's size and tile grid, no pixels.
class TiledImage {
 public:
  const std::filesystem::path& path() const { return path_; }
  const TxInfo& info() const { return info_; }
  std::uint64_t id() const { return id_; }
  // The plain image this .tx was converted from by open_texture(), or empty.
  const std::filesystem::path& converted_from() const { return converted_from_; }
  // True once the image was invalidated or found overwritten: holders should open it again.
  bool stale() const { return stale_.load(std::memory_order_relaxed); }

  TiledImage();  // made by the cache
  ~TiledImage();

 private:
  friend class TileCache;
  struct Detail;  // identity on disk, tile bookkeeping, libtiff handles: the cache's business
  std::filesystem::path path_, converted_from_;
  TxInfo info_;
  std::uint64_t id_ = 0;
  std::atomic<bool> stale_{false};
  std::unique_ptr<Detail> detail_;
};

// The default budget: 1/16 of physical memory, at least 64 MiB and at most 2 GiB — room for the
// working set of a scene without crowding out everything else the process allocates.
std::uint64_t auto_texture_budget(std::uint64_t physical_bytes);
std::uint64_t physical_memory_bytes();

struct TileCacheOptions {
  std::uint64_t memory_budget_bytes = 0;    // 0: auto_texture_budget(physical memory)
  std::size_t l1_entries = 16;              // tiles per thread without a lock
  cache::BlobStore* conversions = nullptr;  // where open_texture() keeps .tx made from plain images
};

// Statistics in the spirit of OIIO's ImageCache::getstats().
struct TileCacheStats {
  cache::TwoLevelCacheStats tiles;                // hits, misses, evictions, peak bytes, load waits
  std::vector<std::uint64_t> requests_per_level;  // tile requests by mip level
  std::vector<std::uint64_t> reads_per_level;     // tiles read from disk by mip level
  std::uint64_t redundant_reads = 0;              // reads of a tile that had been read before (evicted meanwhile)
  std::uint64_t read_ns = 0;                      // time spent reading tiles from disk
  std::uint64_t failed_reads = 0;                 // tiles whose read failed (remembered)
  std::uint64_t open_images = 0, open_files = 0;
  std::uint64_t plain_conversions = 0;  // plain images converted to .tx by open_texture()
  std::uint64_t full_image_bytes = 0;   // held by pixels() conversions, outside the tile budget

  std::uint64_t hits_at(std::size_t level) const;  // requests served without a read
  std::string summary() const;                     // one line for logs
};

class TileCache {
 public:
  explicit TileCache(TileCacheOptions options = {});
  ~TileCache();
  TileCache(const TileCache&) = delete;
  TileCache& operator=(const TileCache&) = delete;

  // The .tx at `path`, reopened if the file changed on disk since it was last opened.
  Result<std::shared_ptr<TiledImage>> open(const std::filesystem::path& path);
  // A .tx held in memory — a pack's entry — read in place, never written anywhere. `name`
  // identifies it (one name, one image); `bytes` must stay valid while the cache may read it.
  Result<std::shared_ptr<TiledImage>> open_memory(const std::string& name, std::span<const std::byte> bytes);
  // A texture an asset names: its current .tx (resolve_texture_path), or the plain source
  // converted once to a .tx in the conversions store.
  Result<std::shared_ptr<TiledImage>> open_texture(const std::filesystem::path& source);

  // Tile (tx, ty) of `level`, pinned while the caller holds it. Hot loops use a TileReader.
  Result<cache::Pinned<Tile>> tile(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty);
  // The whole of level 0 as one image, kept with the image until it is invalidated: the
  // explicit, permanent conversion (it costs width x height x 4 bytes outside the tile budget).
  Result<std::shared_ptr<const Image>> pixels(const std::shared_ptr<TiledImage>& image);
  // The .tx file's bytes as it is stored (for a converted image: the cache entry's payload): what a
  // cook would put in a pack.
  static Result<std::vector<std::byte>> tx_bytes(const TiledImage& image);
  // Drops every tile of the image at `path` (and the image: the next open reads the file again).
  // A plain source's path reaches the .tx converted from it.
  std::size_t invalidate(const std::filesystem::path& path);

  // A reader of the image's file of its own, outside the cache: for whole-level reads at the file's
  // precision (export). Fails if the file on disk is no longer the image's.
  static Result<std::unique_ptr<TxFile>> open_file(const TiledImage& image);

  TileCacheStats stats() const;
  std::uint64_t remembered_failures() const;
  // Drops the tiles the calling thread's first level keeps pinned (worker threads that are done).
  void release_this_thread();
  std::uint64_t budget_bytes() const;

 private:
  friend class TileReader;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One thread's accessor for one image's tiles: it keeps the last tiles it used (one per 2x2 tile
// neighbourhood parity and level parity, so a bilinear or trilinear footprint never evicts its own
// tiles), and a lookup in a kept tile touches neither the cache nor a reference count. A tile it
// does not keep comes from the cache's shared level without a lock, kept by the reader's borrow
// slot (cache::BorrowSlots): no reference count is written on a hit, so threads reading the same
// tiles do not slow each other. Counts its requests locally and adds them to the cache's
// statistics when destroyed or flushed.
// Owned by one thread; the image and the cache must outlive it.
class TileReader {
 public:
  TileReader(TileCache& cache, std::shared_ptr<TiledImage> image);
  ~TileReader();
  TileReader(const TileReader&) = delete;
  TileReader& operator=(const TileReader&) = delete;

  const TiledImage& image() const { return *image_; }
  // The tile, valid until the next call on this reader.
  Result<const Tile*> tile(std::size_t level, std::uint32_t tx, std::uint32_t ty);
  void flush_stats();

 private:
  static constexpr std::size_t kSlots = 8;
  struct Slot {
    std::uint32_t level = ~0u, tx = 0, ty = 0;
    const Tile* tile = nullptr;  // kept by borrowed_'s slot of the same index
  };
  TileCache& cache_;
  std::shared_ptr<TiledImage> image_;
  cache::BorrowSlots borrowed_;
  std::array<Slot, kSlots> slots_;
  std::array<std::uint64_t, kMaxLevels> requests_{};
};

}  // namespace kiln::textures
