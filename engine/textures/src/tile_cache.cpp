#include "kiln/textures/tile_cache.h"
#include "kiln/textures/tx_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

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

TileCache::TileCache(TileCacheOptions options)
    : options_(std::move(options)),
      budget_(options_.memory_budget_bytes ? options_.memory_budget_bytes : auto_texture_budget(physical_memory_bytes())),
      tiles_({.budget_bytes = budget_, .l1_entries = options_.l1_entries, .shards = 16}) {}

Result<std::shared_ptr<TiledImage>> TileCache::open(const std::filesystem::path& path) { return open_file(path, 0); }

Result<std::shared_ptr<TiledImage>> TileCache::open_file(const std::filesystem::path& path, std::uint64_t offset) {
  auto id = identify(path);
  if (!id) return id.error();
  std::shared_ptr<TiledImage> stale;
  {
    std::lock_guard lock(images_mu_);
    if (auto it = images_.find(path); it != images_.end()) {
      const TiledImage& img = *it->second;
      if (img.size_ == id->size && img.mtime_ns_ == id->mtime_ns && img.inode_ == id->inode) return it->second;
      stale = it->second;  // overwritten on disk: a new image, the old tiles go
      images_.erase(it);
    }
  }
  if (stale) forget(*stale);
  return add_image(path, offset ? TxFile::open_at(path, offset) : TxFile::open(path), *id, {}, offset);
}

Result<std::shared_ptr<TiledImage>> TileCache::open_memory(const std::string& name, std::span<const std::byte> bytes) {
  // Named by content, not address: other bytes mapped where these were are another image.
  const TxFile::Identity id{bytes.size(), 0, cache::xxh3_64(bytes)};
  std::shared_ptr<TiledImage> stale;
  {
    std::lock_guard lock(images_mu_);
    if (auto it = images_.find(name); it != images_.end()) {
      const TiledImage& img = *it->second;
      if (img.size_ == id.size && img.inode_ == id.inode && img.memory_.data() == bytes.data()) return it->second;
      // Same name, other bytes or another mapping: a new image, the old tiles go.
      stale = it->second;
      images_.erase(it);
    }
  }
  if (stale) forget(*stale);
  return add_image(name, TxFile::open_memory(name, bytes), id, bytes);
}

Result<std::shared_ptr<TiledImage>> TileCache::add_image(const std::filesystem::path& path,
                                                         Result<std::unique_ptr<TxFile>> file, const TxFile::Identity& id,
                                                         std::span<const std::byte> memory, std::uint64_t file_offset) {
  if (!file) return file.error();
  if ((*file)->info().levels.size() > kMaxLevels)
    return make_error(path.string() + ": " + std::to_string((*file)->info().levels.size()) + " levels (at most " +
                      std::to_string(kMaxLevels) + ")");
  auto image = std::make_shared<TiledImage>();
  image->path_ = path;
  image->info_ = (*file)->info();
  image->size_ = id.size;
  image->mtime_ns_ = id.mtime_ns;
  image->inode_ = id.inode;
  image->memory_ = memory;
  image->file_offset_ = file_offset;
  std::size_t tiles = 0;
  for (const TxLevel& l : image->info_.levels) {
    image->level_first_tile_.push_back(tiles);
    tiles += std::size_t(l.tiles_x()) * l.tiles_y();
  }
  image->tiles_read_ = std::make_unique<std::atomic<std::uint8_t>[]>(tiles);
  image->pool_.push_back(std::move(*file));
  std::lock_guard lock(images_mu_);
  image->id_ = next_id_++;
  auto [it, inserted] = images_.emplace(path, image);
  return inserted ? image : it->second;  // another thread opened it meanwhile: share its image
}

Result<std::shared_ptr<TiledImage>> TileCache::open_texture(const std::filesystem::path& source) {
  const TexturePath resolved = resolve_texture_path(source);
  if (resolved.tiled) return open(resolved.file);
  auto id = identify(source);
  if (!id) return id.error();
  if (!options_.conversions)
    return make_error(source.string() + ": a plain image needs the texture cache for its tiles (cache.root)");
  // Keyed by the source's path and identity: an edited source gets a new .tx, and a later run
  // reuses the conversion of an unchanged one.
  const std::string identity = std::filesystem::absolute(source).lexically_normal().string() + "\n" +
                               std::to_string(id->size) + "\n" + std::to_string(id->mtime_ns) + "\n" +
                               std::to_string(id->inode);
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
      auto bytes = convert_to_tx_bytes(source, *temp);
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

std::uint64_t TileCache::remembered_failures() const {
  std::lock_guard lock(images_mu_);
  return failures_.size();
}

Result<cache::Pinned<Tile>> TileCache::tile(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  if (level < kMaxLevels) requests_[level].fetch_add(1, std::memory_order_relaxed);
  return fetch(image, level, tx, ty);
}

Result<cache::Pinned<Tile>> TileCache::fetch(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  const auto& levels = image.info().levels;
  if (level >= levels.size() || tx >= levels[level].tiles_x() || ty >= levels[level].tiles_y())
    return make_error(image.path().string() + ": level " + std::to_string(level) + " has no tile " + std::to_string(tx) +
                      "," + std::to_string(ty));
  // Its file changed or it was invalidated: its tiles must not come back under the old identity.
  if (image.stale()) return make_error(image.path().string() + ": changed on disk or invalidated; open it again");
  // Every tile of a constant image is the same: serve them all from its first.
  if (image.info().constant_color) level = tx = ty = 0;
  const Key key{image.id(), static_cast<std::uint32_t>(level), tx, ty};
  const auto failure_key = std::make_tuple(key.image, key.level, key.tx, key.ty);
  if (failure_count_.load(std::memory_order_acquire) != 0) {
    std::lock_guard lock(images_mu_);
    if (auto it = failures_.find(failure_key); it != failures_.end()) return make_error(it->second);
  }
  auto result = tiles_.get(key, [&] { return read_tile(image, level, tx, ty); });
  if (!result) {
    std::lock_guard lock(images_mu_);
    failures_.emplace(failure_key, result.error().message);
    failure_count_.store(failures_.size(), std::memory_order_release);
  }
  return result;
}

Result<cache::Loaded<Tile>> TileCache::read_tile(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  const auto started = std::chrono::steady_clock::now();
  // A libtiff handle of our own for the read, so that other tiles of the file load meanwhile.
  std::unique_ptr<TxFile> handle;
  {
    std::lock_guard lock(image.mu_);
    if (!image.pool_.empty()) {
      handle = std::move(image.pool_.back());
      image.pool_.pop_back();
    }
  }
  if (!handle) {
    auto opened = !image.memory_.empty() ? TxFile::open_memory(image.path().string(), image.memory_)
                  : image.file_offset_   ? TxFile::open_at(image.path(), image.file_offset_)
                                         : TxFile::open(image.path());
    if (!opened) return opened.error();
    handle = std::move(*opened);
    // The path may name a newer file by now: its tiles must not pass for this image's.
    if (handle->identity() != TxFile::Identity{image.size_, image.mtime_ns_, image.inode_})
      return make_error(image.path().string() + ": changed on disk or invalidated; open it again");
  }
  auto rgba = handle->read_tile_rgba8(level, tx, ty);
  {
    std::lock_guard lock(image.mu_);
    image.pool_.push_back(std::move(handle));
  }
  read_ns_.fetch_add(std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                       std::chrono::steady_clock::now() - started).count()),
                     std::memory_order_relaxed);
  if (!rgba) {
    failed_reads_.fetch_add(1, std::memory_order_relaxed);
    return rgba.error();
  }
  reads_[level].fetch_add(1, std::memory_order_relaxed);
  const TxLevel& l = image.info().levels[level];
  const std::size_t index = image.level_first_tile_[level] + std::size_t(ty) * l.tiles_x() + tx;
  if (image.tiles_read_[index].exchange(1, std::memory_order_relaxed) != 0)
    redundant_reads_.fetch_add(1, std::memory_order_relaxed);
  Tile t{l.tile_width, l.tile_height, std::move(*rgba)};
  const std::size_t bytes = t.rgba.size() + sizeof(Tile);
  return cache::Loaded<Tile>{std::move(t), bytes, {image.id()}};
}

Result<std::shared_ptr<const Image>> TileCache::pixels(const std::shared_ptr<TiledImage>& image) {
  {
    std::lock_guard lock(image->mu_);
    if (image->full_pixels_) return image->full_pixels_;
  }
  auto full = read_level(*this, image, 0);
  if (!full) return full.error();
  std::lock_guard lock(image->mu_);
  if (!image->full_pixels_) {
    image->full_pixels_ = std::make_shared<const Image>(std::move(*full));
    full_bytes_.fetch_add(image->full_pixels_->pixels.size(), std::memory_order_relaxed);
  }
  return image->full_pixels_;
}

std::size_t TileCache::invalidate(const std::filesystem::path& path) {
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

std::size_t TileCache::forget(TiledImage& image) {
  image.stale_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard lock(images_mu_);
    failures_.erase(failures_.lower_bound(std::make_tuple(image.id(), 0u, 0u, 0u)),
                    failures_.lower_bound(std::make_tuple(image.id() + 1, 0u, 0u, 0u)));
    failure_count_.store(failures_.size(), std::memory_order_release);
  }
  {
    std::lock_guard lock(image.mu_);
    if (image.full_pixels_) full_bytes_.fetch_sub(image.full_pixels_->pixels.size(), std::memory_order_relaxed);
    image.full_pixels_.reset();
  }
  return tiles_.invalidate_tag(image.id());
}

void TileCache::release_this_thread() { tiles_.release_this_thread(); }

TileCacheStats TileCache::stats() const {
  TileCacheStats s;
  s.tiles = tiles_.stats();
  for (std::size_t l = 0; l < kMaxLevels; ++l) {
    const std::uint64_t req = requests_[l].load(std::memory_order_relaxed), rd = reads_[l].load(std::memory_order_relaxed);
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

TileReader::TileReader(TileCache& cache, std::shared_ptr<TiledImage> image) : cache_(cache), image_(std::move(image)) {}

TileReader::~TileReader() { flush_stats(); }

void TileReader::flush_stats() {
  for (std::size_t l = 0; l < kMaxLevels; ++l) {
    if (requests_[l]) cache_.requests_[l].fetch_add(requests_[l], std::memory_order_relaxed);
    requests_[l] = 0;
  }
}

Result<const Tile*> TileReader::tile(std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  if (level < kMaxLevels) ++requests_[level];
  Slot& slot = slots_[(tx & 1) | ((ty & 1) << 1) | ((level & 1) << 2)];
  if (slot.level == level && slot.tx == tx && slot.ty == ty && slot.tile && !image_->stale()) return slot.tile.get();
  auto fetched = cache_.fetch(*image_, level, tx, ty);
  if (!fetched) return fetched.error();
  slot = Slot{static_cast<std::uint32_t>(level), tx, ty, std::move(*fetched)};
  return slot.tile.get();
}

}  // namespace kiln::textures
