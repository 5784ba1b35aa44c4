#include "kiln/textures/tile_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace kiln::textures {

std::uint64_t auto_texture_budget(std::uint64_t physical_bytes) {
  constexpr std::uint64_t kFloor = std::uint64_t{64} << 20, kCeiling = std::uint64_t{2} << 30;
  return std::clamp(physical_bytes / 16, kFloor, kCeiling);
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

TileCache::TileCache(TileCacheOptions options)
    : budget_(options.memory_budget_bytes ? options.memory_budget_bytes : auto_texture_budget(physical_memory_bytes())),
      tiles_({.budget_bytes = budget_, .l1_entries = options.l1_entries, .shards = 16}) {}

Result<std::shared_ptr<TiledImage>> TileCache::open(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return make_error(path.string() + ": cannot open (no such file)");
  const std::uint64_t mtime_ns = std::uint64_t(st.st_mtim.tv_sec) * 1'000'000'000ull + std::uint64_t(st.st_mtim.tv_nsec);
  std::shared_ptr<TiledImage> stale;
  {
    std::lock_guard lock(images_mu_);
    if (auto it = images_.find(path); it != images_.end()) {
      const TiledImage& img = *it->second;
      if (img.size_ == std::uint64_t(st.st_size) && img.mtime_ns_ == mtime_ns && img.inode_ == std::uint64_t(st.st_ino))
        return it->second;
      stale = it->second;  // overwritten on disk: a new image, the old tiles go
      images_.erase(it);
    }
  }
  if (stale) forget(*stale);
  auto file = TxFile::open(path);
  if (!file) return file.error();
  auto image = std::make_shared<TiledImage>();
  image->path_ = path;
  image->info_ = (*file)->info();
  image->size_ = std::uint64_t(st.st_size);
  image->mtime_ns_ = mtime_ns;
  image->inode_ = std::uint64_t(st.st_ino);
  image->pool_.push_back(std::move(*file));
  std::lock_guard lock(images_mu_);
  image->id_ = next_id_++;
  auto [it, inserted] = images_.emplace(path, image);
  return inserted ? image : it->second;  // another thread opened it meanwhile: share its image
}

std::uint64_t TileCache::remembered_failures() const {
  std::lock_guard lock(images_mu_);
  return failures_.size();
}

Result<cache::Pinned<Tile>> TileCache::tile(TiledImage& image, std::size_t level, std::uint32_t tx, std::uint32_t ty) {
  const Key key{image.id(), static_cast<std::uint32_t>(level), tx, ty};
  const auto failure_key = std::make_tuple(key.image, key.level, key.tx, key.ty);
  if (failure_count_.load(std::memory_order_acquire) != 0) {
    std::lock_guard lock(images_mu_);
    if (auto it = failures_.find(failure_key); it != failures_.end()) return make_error(it->second);
  }
  auto result = tiles_.get(key, [&]() -> Result<cache::Loaded<Tile>> {
    // A libtiff handle of our own for the read, so that other tiles of the file load meanwhile.
    std::unique_ptr<TxFile> handle;
    {
      std::lock_guard lock(image.pool_mu_);
      if (!image.pool_.empty()) {
        handle = std::move(image.pool_.back());
        image.pool_.pop_back();
      }
    }
    if (!handle) {
      auto opened = TxFile::open(image.path());
      if (!opened) return opened.error();
      handle = std::move(*opened);
    }
    auto rgba = handle->read_tile_rgba8(level, tx, ty);
    {
      std::lock_guard lock(image.pool_mu_);
      image.pool_.push_back(std::move(handle));
    }
    if (!rgba) return rgba.error();
    const TxLevel& l = image.info().levels[level];
    Tile t{l.tile_width, l.tile_height, std::move(*rgba)};
    const std::size_t bytes = t.rgba.size() + sizeof(Tile);
    return cache::Loaded<Tile>{std::move(t), bytes, {image.id()}};
  });
  if (!result) {
    std::lock_guard lock(images_mu_);
    failures_.emplace(failure_key, result.error().message);
    failure_count_.store(failures_.size(), std::memory_order_release);
  }
  return result;
}

std::size_t TileCache::invalidate(const std::filesystem::path& path) {
  std::shared_ptr<TiledImage> image;
  {
    std::lock_guard lock(images_mu_);
    auto it = images_.find(path);
    if (it == images_.end()) return 0;
    image = it->second;
    images_.erase(it);
  }
  return forget(*image);
}

std::size_t TileCache::forget(const TiledImage& image) {
  {
    std::lock_guard lock(images_mu_);
    failures_.erase(failures_.lower_bound(std::make_tuple(image.id(), 0u, 0u, 0u)),
                    failures_.lower_bound(std::make_tuple(image.id() + 1, 0u, 0u, 0u)));
    failure_count_.store(failures_.size(), std::memory_order_release);
  }
  return tiles_.invalidate_tag(image.id());
}

}  // namespace kiln::textures
