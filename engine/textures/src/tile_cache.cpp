#include "kiln/textures/tile_cache.h"

#include "kiln/core/input_limits.h"
#include "kiln/textures/tx_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "kiln/cache/hash.h"
#include "kiln/core/config.h"
#include "kiln/textures/texture_path.h"
#include "kiln/textures/thumbnail.h"
#include "kiln/textures/tx_writer.h"

namespace kiln::textures {
namespace {

// What the path names now (TxFile::identity() says what an open handle reads).
Result<TxFile::Identity> identify(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return make_error(path.string() + ": cannot open (no such file)");
  return TxFile::Identity{std::uint64_t(st.st_size),
                          std::uint64_t(st.st_mtim.tv_sec) * 1'000'000'000ull + std::uint64_t(st.st_mtim.tv_nsec),
                          std::uint64_t(st.st_ino)};
}

}  // namespace

struct TiledImage::Detail {
  std::uint64_t size_ = 0, mtime_ns_ = 0, inode_ = 0;
  std::span<const std::byte> memory_;          // open_memory(): the .tx bytes, owned by the caller
  std::uint64_t file_offset_ = 0;              // where the .tx starts in the file (a cache entry's payload)
  std::vector<std::size_t> level_first_tile_;  // index of each level's first tile in tiles_read_
  std::unique_ptr<std::atomic<std::uint8_t>[]> tiles_read_;  // per tile: read from disk before
  std::mutex mu_;                                            // guards pool_ and full_pixels_
  std::vector<std::unique_ptr<TxFile>> pool_;                // libtiff handles not in use: one per concurrent reader
  std::shared_ptr<const Image> full_pixels_;                 // pixels(): the explicit, permanent conversion
};

TiledImage::TiledImage() : detail_(std::make_unique<Detail>()) {}
TiledImage::~TiledImage() = default;

struct TileCache::Impl {
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

  explicit Impl(TileCacheOptions options)
      : options_(std::move(options)),
        budget_(options_.memory_budget_bytes ? options_.memory_budget_bytes
                                             : auto_texture_budget(physical_memory_bytes())),
        tiles_({.budget_bytes = budget_, .l1_entries = options_.l1_entries, .shards = 16}) {}

  Result<std::shared_ptr<TiledImage>> open_file(const std::filesystem::path& path, std::uint64_t offset);
  Result<std::shared_ptr<TiledImage>> open_memory(const std::string& name, std::span<const std::byte> bytes);
  Result<std::shared_ptr<TiledImage>> open_texture(const std::filesystem::path& source);
  Result<std::shared_ptr<TiledImage>> add_image(const std::filesystem::path& path, Result<std::unique_ptr<TxFile>> file,
                                                const TxFile::Identity& id, std::span<const std::byte> memory,
                                                std::uint64_t file_offset = 0);
  Result<cache::Pinned<Tile>> fetch(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty);
  // As fetch(), kept in slot `slot` of `slots` (a TileReader's) instead of pinned.
  Result<const Tile*> fetch_into(cache::BorrowSlots& slots, std::size_t slot, TiledImage& image, std::size_t level,
                                 std::uint32_t tx, std::uint32_t ty);
  // The cache key of a tile, or why it cannot be served (out of range, stale, a remembered failure).
  Result<Key> tile_key(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty);
  void remember_failure(const Key& key, const std::string& message);
  Result<cache::Loaded<Tile>> read_tile(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty);
  std::size_t invalidate(const std::filesystem::path& path);
  std::size_t forget(TiledImage& image);  // its tiles and remembered failures
  TileCacheStats stats() const;

  TileCacheOptions options_;
  std::uint64_t budget_;
  cache::TwoLevelCache<Key, Tile, KeyHash> tiles_;
  mutable std::mutex images_mu_;  // guards images_, converted_ and failures_
  std::map<std::filesystem::path, std::shared_ptr<TiledImage>> images_;
  std::map<std::filesystem::path, std::filesystem::path> converted_;  // plain source -> its .tx
  std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::string> failures_;
  // failures_.size(), readable without the lock: a tile request looks at failures_ only when there
  // are any, so a hit stays lock-free.
  std::atomic<std::size_t> failure_count_{0};
  std::uint64_t next_id_ = 1;
  std::mutex conversion_mu_;  // one plain-image conversion at a time (rare, CPU-bound); guards conversion_ns_
  std::optional<cache::BlobNamespace> conversion_ns_;

  std::array<std::atomic<std::uint64_t>, kMaxLevels> requests_{}, reads_{};
  std::atomic<std::uint64_t> redundant_reads_{0}, read_ns_{0}, failed_reads_{0}, conversions_{0}, full_bytes_{0};
};

std::uint64_t auto_texture_budget(std::uint64_t physical_bytes) {
  constexpr std::uint64_t kFloor = std::uint64_t{64} << 20, kCeiling = std::uint64_t{2} << 30;
  return std::clamp(physical_bytes / 16, kFloor, kCeiling);
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::uint64_t TileCacheStats::hits_at(std::size_t level) const {
  const std::uint64_t requests = level < requests_per_level.size() ? requests_per_level[level] : 0;
  const std::uint64_t reads = level < reads_per_level.size() ? reads_per_level[level] : 0;
  return requests > reads ? requests - reads : 0;
}

std::string TileCacheStats::summary() const {
  std::string levels;
  for (std::size_t l = 0; l < std::max(requests_per_level.size(), reads_per_level.size()); ++l) {
    const std::uint64_t reads = l < reads_per_level.size() ? reads_per_level[l] : 0;
    if (hits_at(l) == 0 && reads == 0) continue;
    levels += " L" + std::to_string(l) + "=" + std::to_string(hits_at(l)) + "/" + std::to_string(reads);
  }
  return "tiles hit/read by level:" + (levels.empty() ? std::string(" none") : levels) +
         " redundant=" + std::to_string(redundant_reads) + " read=" + std::to_string(read_ns / 1000000) + "ms" +
         " failed=" + std::to_string(failed_reads) + " images=" + std::to_string(open_images) +
         " files=" + std::to_string(open_files) + " converted=" + std::to_string(plain_conversions) +
         " peak=" + format_size(tiles.peak_bytes) + " budget=" + format_size(tiles.budget_bytes) +
         " waits=" + std::to_string(tiles.load_waits) + "/" + std::to_string(tiles.load_wait_ns / 1000000) + "ms";
}

TileCache::TileCache(TileCacheOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
TileCache::~TileCache() = default;

Result<std::shared_ptr<TiledImage>> TileCache::open(const std::filesystem::path& path) {
  return impl_->open_file(path, 0);
}
Result<std::shared_ptr<TiledImage>> TileCache::open_memory(const std::string& name, std::span<const std::byte> bytes) {
  return impl_->open_memory(name, bytes);
}
Result<std::unique_ptr<TxFile>> TileCache::open_file(const TiledImage& image) {
  auto opened = !image.detail_->memory_.empty() ? TxFile::open_memory(image.path().string(), image.detail_->memory_)
                : image.detail_->file_offset_   ? TxFile::open_at(image.path(), image.detail_->file_offset_)
                                                : TxFile::open(image.path());
  if (!opened) return opened.error();
  // The path may name a newer file by now: its tiles must not pass for this image's.
  if ((*opened)->identity() != TxFile::Identity{image.detail_->size_, image.detail_->mtime_ns_, image.detail_->inode_})
    return make_error(image.path().string() + ": changed on disk or invalidated; open it again");
  return opened;
}

Result<std::shared_ptr<TiledImage>> TileCache::open_texture(const std::filesystem::path& source) {
  return impl_->open_texture(source);
}
Result<cache::Pinned<Tile>> TileCache::tile(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  if (level < kMaxLevels) impl_->requests_[level].fetch_add(1, std::memory_order_relaxed);
  return impl_->fetch(image, level, tx, ty);
}
std::size_t TileCache::invalidate(const std::filesystem::path& path) { return impl_->invalidate(path); }
TileCacheStats TileCache::stats() const { return impl_->stats(); }
std::uint64_t TileCache::remembered_failures() const {
  std::lock_guard lock(impl_->images_mu_);
  return impl_->failures_.size();
}
void TileCache::release_this_thread() { impl_->tiles_.release_this_thread(); }
std::uint64_t TileCache::budget_bytes() const { return impl_->budget_; }

Result<std::shared_ptr<TiledImage>> TileCache::Impl::open_file(const std::filesystem::path& path,
                                                               std::uint64_t offset) {
  auto id = identify(path);
  if (!id) return id.error();
  std::shared_ptr<TiledImage> stale;
  {
    std::lock_guard lock(images_mu_);
    if (auto it = images_.find(path); it != images_.end()) {
      const TiledImage& img = *it->second;
      if (img.detail_->size_ == id->size && img.detail_->mtime_ns_ == id->mtime_ns && img.detail_->inode_ == id->inode)
        return it->second;
      stale = it->second;  // overwritten on disk: a new image, the old tiles go
      images_.erase(it);
    }
  }
  if (stale) forget(*stale);
  return add_image(path, offset ? TxFile::open_at(path, offset) : TxFile::open(path), *id, {}, offset);
}

Result<std::shared_ptr<TiledImage>> TileCache::Impl::open_memory(const std::string& name,
                                                                 std::span<const std::byte> bytes) {
  // Named by content, not address: other bytes mapped where these were are another image.
  const TxFile::Identity id{bytes.size(), 0, cache::xxh3_64(bytes)};
  std::shared_ptr<TiledImage> stale;
  {
    std::lock_guard lock(images_mu_);
    if (auto it = images_.find(name); it != images_.end()) {
      const TiledImage& img = *it->second;
      if (img.detail_->size_ == id.size && img.detail_->inode_ == id.inode &&
          img.detail_->memory_.data() == bytes.data())
        return it->second;
      // Same name, other bytes or another mapping: a new image, the old tiles go.
      stale = it->second;
      images_.erase(it);
    }
  }
  if (stale) forget(*stale);
  return add_image(name, TxFile::open_memory(name, bytes), id, bytes);
}

Result<std::shared_ptr<TiledImage>> TileCache::Impl::add_image(const std::filesystem::path& path,
                                                               Result<std::unique_ptr<TxFile>> file,
                                                               const TxFile::Identity& id,
                                                               std::span<const std::byte> memory,
                                                               std::uint64_t file_offset) {
  if (!file) return file.error();
  if ((*file)->info().levels.size() > kMaxLevels)
    return make_error(path.string() + ": " + std::to_string((*file)->info().levels.size()) + " levels (at most " +
                      std::to_string(kMaxLevels) + ")");
  auto image = std::make_shared<TiledImage>();
  image->path_ = path;
  image->info_ = (*file)->info();
  image->detail_->size_ = id.size;
  image->detail_->mtime_ns_ = id.mtime_ns;
  image->detail_->inode_ = id.inode;
  image->detail_->memory_ = memory;
  image->detail_->file_offset_ = file_offset;
  std::size_t tiles = 0;
  for (const TxLevel& l : image->info_.levels) {
    image->detail_->level_first_tile_.push_back(tiles);
    tiles += std::size_t(l.tiles_x()) * l.tiles_y();
  }
  image->detail_->tiles_read_ = std::make_unique<std::atomic<std::uint8_t>[]>(tiles);
  image->detail_->pool_.push_back(std::move(*file));
  std::lock_guard lock(images_mu_);
  image->id_ = next_id_++;
  auto [it, inserted] = images_.emplace(path, image);
  return inserted ? image : it->second;  // another thread opened it meanwhile: share its image
}

Result<std::shared_ptr<TiledImage>> TileCache::Impl::open_texture(const std::filesystem::path& source) {
  const TexturePath resolved = resolve_texture_path(source);
  if (resolved.tiled) return open_file(resolved.file, 0);
  auto id = identify(source);
  if (!id) return id.error();
  if (!options_.conversions)
    return make_error(source.string() + ": a plain image needs the texture cache for its tiles (cache.root)");
  auto settings = settings_for_file(source);
  if (!settings) return settings.error();
  // Keyed by the source's path and identity and the settings: an edited source or sidecar gets a
  // new .tx, and a later run reuses the conversion of an unchanged one.
  const std::string identity = std::filesystem::absolute(source).lexically_normal().string() + "\n" +
                               std::to_string(id->size) + "\n" + std::to_string(id->mtime_ns) + "\n" +
                               std::to_string(id->inode) + "\n" + describe_settings(*settings);
  const cache::BlobKey key{cache::xxh3_128(identity)};
  std::filesystem::path entry;
  {
    std::lock_guard lock(conversion_mu_);
    if (!conversion_ns_) {
      auto ns = open_tx_namespace(*options_.conversions, TxKeying::kFileIdentity);
      if (!ns) return make_error(source.string() + ": " + ns.error().message);
      conversion_ns_ = std::move(*ns);
    }
    entry = options_.conversions->blob_path(*conversion_ns_, key);
    bool open_already = false;
    {
      std::lock_guard images_lock(images_mu_);
      open_already = images_.count(entry) > 0;
    }
    // An entry is checked whole when this process first uses it; an open one is known good.
    if (!open_already && !options_.conversions->get(*conversion_ns_, key)) {
      auto temp = options_.conversions->temp_path(*conversion_ns_, "tx");
      if (!temp) return make_error(source.string() + ": " + temp.error().message);
      auto bytes = convert_to_tx_bytes(source, *temp, *settings);
      if (!bytes) return bytes.error();
      options_.conversions->put(*conversion_ns_, key, std::move(*bytes));
      options_.conversions->flush();  // streamed from the file: it must be there
      conversions_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  auto image = open_file(entry, cache::kBlobPayloadOffset);
  if (!image) return image.error();
  std::lock_guard lock(images_mu_);
  (*image)->converted_from_ = source;
  converted_[source] = entry;
  return image;
}

Result<TileCache::Impl::Key> TileCache::Impl::tile_key(TiledImage& image, std::size_t level, std::uint32_t tx,
                                                       std::uint32_t ty) {
  const auto& levels = image.info().levels;
  if (level >= levels.size() || tx >= levels[level].tiles_x() || ty >= levels[level].tiles_y())
    return make_error(image.path().string() + ": level " + std::to_string(level) + " has no tile " +
                      std::to_string(tx) + "," + std::to_string(ty));
  // Its file changed or it was invalidated: its tiles must not come back under the old identity.
  if (image.stale()) return make_error(image.path().string() + ": changed on disk or invalidated; open it again");
  // Every tile of a constant image is the same: serve them all from its first.
  if (image.info().constant_color) level = tx = ty = 0;
  const Key key{image.id(), static_cast<std::uint32_t>(level), tx, ty};
  if (failure_count_.load(std::memory_order_acquire) != 0) {
    std::lock_guard lock(images_mu_);
    if (auto it = failures_.find(std::make_tuple(key.image, key.level, key.tx, key.ty)); it != failures_.end())
      return make_error(it->second);
  }
  return key;
}

void TileCache::Impl::remember_failure(const Key& key, const std::string& message) {
  std::lock_guard lock(images_mu_);
  failures_.emplace(std::make_tuple(key.image, key.level, key.tx, key.ty), message);
  failure_count_.store(failures_.size(), std::memory_order_release);
}

Result<cache::Pinned<Tile>> TileCache::Impl::fetch(TiledImage& image, std::size_t level, std::uint32_t tx,
                                                   std::uint32_t ty) {
  auto key = tile_key(image, level, tx, ty);
  if (!key) return key.error();
  auto result = tiles_.get(*key, [&] { return read_tile(image, key->level, key->tx, key->ty); });
  if (!result) remember_failure(*key, result.error().message);
  return result;
}

Result<const Tile*> TileCache::Impl::fetch_into(cache::BorrowSlots& slots, std::size_t slot, TiledImage& image,
                                                std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  auto key = tile_key(image, level, tx, ty);
  if (!key) return key.error();
  auto result = tiles_.borrow_into(slots, slot, *key, [&] { return read_tile(image, key->level, key->tx, key->ty); });
  if (!result) remember_failure(*key, result.error().message);
  return result;
}

Result<cache::Loaded<Tile>> TileCache::Impl::read_tile(TiledImage& image, std::size_t level, std::uint32_t tx,
                                                       std::uint32_t ty) {
  const auto started = std::chrono::steady_clock::now();
  // A libtiff handle of our own for the read, so that other tiles of the file load meanwhile.
  std::unique_ptr<TxFile> handle;
  {
    std::lock_guard lock(image.detail_->mu_);
    if (!image.detail_->pool_.empty()) {
      handle = std::move(image.detail_->pool_.back());
      image.detail_->pool_.pop_back();
    }
  }
  if (!handle) {
    auto opened = TileCache::open_file(image);
    if (!opened) return opened.error();
    handle = std::move(*opened);
  }
  auto rgba = handle->read_tile_rgba8(level, tx, ty);
  {
    std::lock_guard lock(image.detail_->mu_);
    image.detail_->pool_.push_back(std::move(handle));
  }
  read_ns_.fetch_add(
      std::uint64_t(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count()),
      std::memory_order_relaxed);
  if (!rgba) {
    failed_reads_.fetch_add(1, std::memory_order_relaxed);
    return rgba.error();
  }
  reads_[level].fetch_add(1, std::memory_order_relaxed);
  const TxLevel& l = image.info().levels[level];
  const std::size_t index = image.detail_->level_first_tile_[level] + std::size_t(ty) * l.tiles_x() + tx;
  if (image.detail_->tiles_read_[index].exchange(1, std::memory_order_relaxed) != 0)
    redundant_reads_.fetch_add(1, std::memory_order_relaxed);
  Tile t{l.tile_width, l.tile_height, std::move(*rgba)};
  const std::size_t bytes = t.rgba.size() + sizeof(Tile);
  return cache::Loaded<Tile>{std::move(t), bytes, {image.id()}};
}

Result<std::vector<std::byte>> TileCache::tx_bytes(const TiledImage& image) {
  auto bytes = read_input_file(image.path(), limits::kDecodedImageBytes, "texture");
  if (!bytes) return bytes.error();
  const std::uint64_t offset = image.detail_->file_offset_;
  if (offset > bytes->size()) return make_error(image.path().string() + ": shorter than its cache entry header");
  const auto* data = reinterpret_cast<const std::byte*>(bytes->data());
  return std::vector<std::byte>(data + offset, data + bytes->size());
}

Result<std::shared_ptr<const Image>> TileCache::pixels(const std::shared_ptr<TiledImage>& image) {
  {
    std::lock_guard lock(image->detail_->mu_);
    if (image->detail_->full_pixels_) return image->detail_->full_pixels_;
  }
  auto full = read_level(*this, image, 0);
  if (!full) return full.error();
  std::lock_guard lock(image->detail_->mu_);
  if (!image->detail_->full_pixels_) {
    image->detail_->full_pixels_ = std::make_shared<const Image>(std::move(*full));
    impl_->full_bytes_.fetch_add(image->detail_->full_pixels_->pixels.size(), std::memory_order_relaxed);
  }
  return image->detail_->full_pixels_;
}

std::size_t TileCache::Impl::invalidate(const std::filesystem::path& path) {
  std::shared_ptr<TiledImage> image;
  {
    std::lock_guard lock(images_mu_);
    auto it = images_.find(path);
    if (it == images_.end()) {
      auto conv = converted_.find(path);
      if (conv == converted_.end()) return 0;
      it = images_.find(conv->second);
      converted_.erase(conv);
      if (it == images_.end()) return 0;
    }
    image = it->second;
    images_.erase(it);
  }
  return forget(*image);
}

std::size_t TileCache::Impl::forget(TiledImage& image) {
  image.stale_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard lock(images_mu_);
    failures_.erase(failures_.lower_bound(std::make_tuple(image.id(), 0u, 0u, 0u)),
                    failures_.lower_bound(std::make_tuple(image.id() + 1, 0u, 0u, 0u)));
    failure_count_.store(failures_.size(), std::memory_order_release);
  }
  {
    std::lock_guard lock(image.detail_->mu_);
    if (image.detail_->full_pixels_)
      full_bytes_.fetch_sub(image.detail_->full_pixels_->pixels.size(), std::memory_order_relaxed);
    image.detail_->full_pixels_.reset();
  }
  return tiles_.invalidate_tag(image.id());
}

TileCacheStats TileCache::Impl::stats() const {
  TileCacheStats s;
  s.tiles = tiles_.stats();
  for (std::size_t l = 0; l < kMaxLevels; ++l) {
    const std::uint64_t req = requests_[l].load(std::memory_order_relaxed),
                        rd = reads_[l].load(std::memory_order_relaxed);
    if (req || rd) {
      s.requests_per_level.resize(l + 1);
      s.reads_per_level.resize(l + 1);
      s.requests_per_level[l] = req;
      s.reads_per_level[l] = rd;
    }
  }
  s.redundant_reads = redundant_reads_.load(std::memory_order_relaxed);
  s.read_ns = read_ns_.load(std::memory_order_relaxed);
  s.failed_reads = failed_reads_.load(std::memory_order_relaxed);
  s.plain_conversions = conversions_.load(std::memory_order_relaxed);
  s.full_image_bytes = full_bytes_.load(std::memory_order_relaxed);
  s.open_files = TxFile::open_handles();
  std::lock_guard lock(images_mu_);
  s.open_images = images_.size();
  return s;
}

TileReader::TileReader(TileCache& cache, std::shared_ptr<TiledImage> image)
    : cache_(cache), image_(std::move(image)), borrowed_(cache.impl_->tiles_.borrow_slots(kSlots)) {}

TileReader::~TileReader() { flush_stats(); }

void TileReader::flush_stats() {
  for (std::size_t l = 0; l < kMaxLevels; ++l) {
    if (requests_[l]) cache_.impl_->requests_[l].fetch_add(requests_[l], std::memory_order_relaxed);
    requests_[l] = 0;
  }
}

Result<const Tile*> TileReader::tile(std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  if (level < kMaxLevels) ++requests_[level];
  const std::size_t index = (tx & 1) | ((ty & 1) << 1) | ((level & 1) << 2);
  Slot& slot = slots_[index];
  if (slot.level == level && slot.tx == tx && slot.ty == ty && slot.tile && !image_->stale()) return slot.tile;
  slot = Slot{};
  borrowed_.release(index);  // the tile the slot kept, also when this fetch fails
  auto fetched = cache_.impl_->fetch_into(borrowed_, index, *image_, level, tx, ty);
  if (!fetched) return fetched.error();
  slot = Slot{static_cast<std::uint32_t>(level), tx, ty, *fetched};
  return slot.tile;
}

}  // namespace kiln::textures
