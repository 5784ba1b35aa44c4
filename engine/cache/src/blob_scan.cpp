// prune() and verify(): the walks over the whole store.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <set>

#include "blob_format.h"
#include "blob_store_impl.h"
#include "kiln/cache/private_files.h"

namespace kiln::cache {
namespace fs = std::filesystem;
namespace {

// Temp files younger than this may belong to a live writer (another process's too).
constexpr std::time_t kStaleTempSeconds = 3600;

struct FoundBlob {
  fs::path path;
  std::uint64_t size;
  std::time_t mtime;
};

std::vector<fs::path> subdirectories(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) out.push_back(it->path());
  }
  return out;
}

std::time_t mtime_of(const fs::path& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mtime : 0;
}

// Every blob file below a namespace directory; stale temp files are removed on the way.
void collect_blobs(const fs::path& ns_dir, std::vector<FoundBlob>& blobs, std::uint64_t& removed) {
  const std::time_t now = std::time(nullptr);
  for (const fs::path& shard : subdirectories(ns_dir)) {
    std::error_code ec;
    for (fs::directory_iterator it(shard, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      struct stat st;
      if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (is_temp_file_name(name)) {
        if (now - st.st_mtime > kStaleTempSeconds && ::unlink(it->path().c_str()) == 0) ++removed;
        continue;
      }
      if (blob_format::key_from_file_name(name))
        blobs.push_back({it->path(), static_cast<std::uint64_t>(st.st_size), st.st_mtime});
    }
  }
}

// Removes a namespace no store holds open (see BlobStore::lock_namespace). Holding its lock
// exclusively while removing makes a store that opens it meanwhile wait, then notice and recreate.
bool remove_unused_namespace(const fs::path& ns) {
  const fs::path lock_path = ns / "LOCK";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  bool removed = false;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    std::error_code ec;
    fs::remove_all(ns, ec);
    removed = !ec;
  }
  ::close(fd);
  return removed;
}

}  // namespace

Result<BlobScan> BlobStore::prune() {
  Impl& self = *impl_;
  BlobScan scan;
  std::set<fs::path> keep;
  {
    std::lock_guard lock(self.mu);
    for (const auto& [dir, fd] : self.namespace_locks) keep.insert(dir);
  }

  std::vector<FoundBlob> blobs;
  for (const fs::path& kind_dir : subdirectories(self.options.root)) {
    std::vector<std::pair<std::time_t, fs::path>> namespaces;
    for (const fs::path& ns : subdirectories(kind_dir)) namespaces.emplace_back(mtime_of(ns), ns);
    std::sort(namespaces.begin(), namespaces.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < namespaces.size(); ++i) {
      const fs::path& ns = namespaces[i].second;
      if (i >= static_cast<std::size_t>(std::max(1, self.options.keep_namespaces)) && !keep.count(ns) &&
          remove_unused_namespace(ns)) {
        self.pruned_namespaces.fetch_add(1, std::memory_order_relaxed);
        ++scan.removed;
        continue;
      }
      collect_blobs(ns, blobs, scan.removed);
    }
  }

  std::uint64_t total = 0;
  for (const FoundBlob& b : blobs) total += b.size;
  if (total > self.options.max_bytes) {
    // Down to 90% so that the next few writes do not trigger another walk at once.
    const std::uint64_t target = self.options.max_bytes / 10 * 9;
    std::sort(blobs.begin(), blobs.end(), [](const FoundBlob& a, const FoundBlob& b) { return a.mtime < b.mtime; });
    std::size_t i = 0;
    for (; i < blobs.size() && total > target; ++i) {
      ::unlink(blobs[i].path.c_str());
      total -= blobs[i].size;
      ++scan.removed;
      self.pruned_blobs.fetch_add(1, std::memory_order_relaxed);
    }
    blobs.erase(blobs.begin(), blobs.begin() + static_cast<std::ptrdiff_t>(i));
  }
  scan.blobs = blobs.size();
  scan.bytes = total;
  return scan;
}

Result<BlobScan> BlobStore::verify() {
  Impl& self = *impl_;
  BlobScan scan;
  std::vector<FoundBlob> blobs;
  for (const fs::path& kind_dir : subdirectories(self.options.root))
    for (const fs::path& ns : subdirectories(kind_dir)) collect_blobs(ns, blobs, scan.removed);
  for (const FoundBlob& b : blobs) {
    auto key = blob_format::key_from_file_name(b.path.filename().string());
    // A verify must not count as a use: an interval no blob can reach keeps mtimes as they are.
    BlobRead read = read_blob_file(b.path, *key, self.owner, std::chrono::seconds::max());
    if (auto* unreadable = std::get_if<BlobUnreadable>(&read)) {
      self.record_error(b.path.string() + ": " + unreadable->problem);
    } else if (auto* bad = std::get_if<BlobCorrupt>(&read)) {
      ++scan.corrupt;
      self.corrupt_deleted.fetch_add(1, std::memory_order_relaxed);
      self.record_error(b.path.string() + ": corrupt blob deleted: " + bad->problem);
    } else if (std::holds_alternative<Bytes>(read)) {
      ++scan.blobs;
      scan.bytes += b.size;
    }
  }
  return scan;
}

}  // namespace kiln::cache
