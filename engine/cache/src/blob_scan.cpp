// prune(), verify(), scan() and clear(): the walks over the kinds of the store.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <set>

#include "blob_format.h"
#include "blob_store_impl.h"
#include "kiln/cache/cache_kinds.h"
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
  std::string kind;
};

std::vector<fs::path> subdirectories(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Nanoseconds: namespaces opened within one second still order.
std::int64_t mtime_ns_of(const fs::path& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 ? std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec : 0;
}

// Every blob file below a namespace directory; stale temp files are removed on the way unless
// `read_only` (a look that must change nothing: stats).
void collect_blobs(const fs::path& ns_dir, const std::string& kind, std::vector<FoundBlob>& blobs,
                   std::uint64_t& removed, bool read_only = false) {
  const std::time_t now = std::time(nullptr);
  for (const fs::path& shard : subdirectories(ns_dir)) {
    std::error_code ec;
    for (fs::directory_iterator it(shard, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      struct stat st;
      if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (is_temp_file_name(name)) {
        if (!read_only && now - st.st_mtime > kStaleTempSeconds && ::unlink(it->path().c_str()) == 0) ++removed;
        continue;
      }
      if (blob_format::key_from_file_name(name))
        blobs.push_back({it->path(), static_cast<std::uint64_t>(st.st_size), st.st_mtime, kind});
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

// The build a namespace directory belongs to: "<build>-<settings>". A directory of an older layout
// is a build of its own.
std::string build_of(const fs::path& ns) {
  const std::string name = ns.filename().string();
  const auto dash = name.find('-');
  return dash == std::string::npos ? name : name.substr(0, dash);
}

// The namespaces of one kind, grouped by build, newest build first (by its newest namespace).
std::vector<std::vector<fs::path>> builds_newest_first(const fs::path& kind_dir) {
  std::map<std::string, std::pair<std::int64_t, std::vector<fs::path>>> builds;
  for (const fs::path& ns : subdirectories(kind_dir)) {
    auto& build = builds[build_of(ns)];
    build.first = std::max(build.first, mtime_ns_of(ns));
    build.second.push_back(ns);
  }
  std::vector<std::pair<std::int64_t, std::vector<fs::path>>> ordered;
  for (auto& [id, build] : builds) ordered.push_back(std::move(build));
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::vector<fs::path>> out;
  for (auto& [time, namespaces] : ordered) out.push_back(std::move(namespaces));
  return out;
}

// Files directly in a kind's directory are not entries: the page cache's key, the kind's use
// statistics and the textures' memo of libtiff's version (textures/src/libtiff_version.h) stay,
// stale temp files go, and anything else is left by an older layout (loose .tx conversions, say)
// and goes.
void remove_loose_files(const fs::path& kind_dir, std::uint64_t& removed) {
  const std::time_t now = std::time(nullptr);
  std::error_code ec;
  for (fs::directory_iterator it(kind_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0 || S_ISDIR(st.st_mode) || name == "secret.key" || name == "STATS" ||
        name == "libtiff-version")
      continue;
    const bool fresh_temp = is_temp_file_name(name) && now - st.st_mtime <= kStaleTempSeconds;
    if (!fresh_temp && ::unlink(it->path().c_str()) == 0) ++removed;
  }
}

void add_to(BlobScan& scan, const std::string& kind, const FoundBlob& blob) {
  scan.blobs += 1;
  scan.bytes += blob.size;
  scan.kinds[kind].blobs += 1;
  scan.kinds[kind].bytes += blob.size;
}

BlobScan empty_scan() {
  BlobScan scan;
  for (const CacheKind& kind : cache_kinds()) scan.kinds[std::string(kind.name)];
  return scan;
}

}  // namespace

Result<BlobScan> BlobStore::prune() {
  Impl& self = *impl_;
  BlobScan scan = empty_scan();
  std::set<fs::path> keep;
  {
    std::lock_guard lock(self.mu);
    for (const auto& [dir, fd] : self.namespace_locks) keep.insert(dir);
  }

  std::vector<FoundBlob> blobs;
  for (const CacheKind& kind : cache_kinds()) {
    const std::string name(kind.name);
    BlobScanCounts& counts = scan.kinds[name];
    remove_loose_files(self.options.root / name, counts.removed);
    const auto builds = builds_newest_first(self.options.root / name);
    for (std::size_t i = 0; i < builds.size(); ++i) {
      const bool old_build = i >= static_cast<std::size_t>(std::max(1, self.options.keep_namespaces));
      for (const fs::path& ns : builds[i]) {
        if (old_build && !keep.count(ns) && remove_unused_namespace(ns)) {
          self.pruned_namespaces.fetch_add(1, std::memory_order_relaxed);
          self.use.add(cache_kind_index(name), KindUseCounters::kEvictions);
          ++counts.removed;
          continue;
        }
        ++counts.namespaces;
        collect_blobs(ns, name, blobs, counts.removed);
      }
    }
  }

  std::uint64_t total = 0;
  for (const FoundBlob& b : blobs) total += b.size;
  if (total > self.options.max_bytes) {
    // One cap over every kind, least recently used first, down to 90% so that the next few writes
    // do not trigger another walk at once.
    const std::uint64_t target = self.options.max_bytes / 10 * 9;
    std::sort(blobs.begin(), blobs.end(), [](const FoundBlob& a, const FoundBlob& b) { return a.mtime < b.mtime; });
    std::size_t i = 0;
    for (; i < blobs.size() && total > target; ++i) {
      ::unlink(blobs[i].path.c_str());
      total -= blobs[i].size;
      ++scan.kinds[blobs[i].kind].removed;
      self.use.add(cache_kind_index(blobs[i].kind), KindUseCounters::kEvictions);
      self.pruned_blobs.fetch_add(1, std::memory_order_relaxed);
    }
    blobs.erase(blobs.begin(), blobs.begin() + static_cast<std::ptrdiff_t>(i));
  }
  for (const FoundBlob& b : blobs) add_to(scan, b.kind, b);
  for (const auto& [kind, counts] : scan.kinds) {
    scan.removed += counts.removed;
    scan.namespaces += counts.namespaces;
  }
  return scan;
}

Result<BlobScan> BlobStore::verify() {
  Impl& self = *impl_;
  BlobScan scan = empty_scan();
  std::vector<FoundBlob> blobs;
  for (const CacheKind& kind : cache_kinds()) {
    const std::string name(kind.name);
    for (const fs::path& ns : subdirectories(self.options.root / name)) {
      ++scan.kinds[name].namespaces;
      collect_blobs(ns, name, blobs, scan.kinds[name].removed);
    }
  }
  for (const FoundBlob& b : blobs) {
    auto key = blob_format::key_from_file_name(b.path.filename().string());
    // A verify must not count as a use: an interval no blob can reach keeps mtimes as they are.
    BlobRead read = read_blob_file(b.path, *key, self.owner, std::chrono::seconds::max());
    if (auto* unreadable = std::get_if<BlobUnreadable>(&read)) {
      self.record_error(b.path.string() + ": " + unreadable->problem);
    } else if (auto* bad = std::get_if<BlobCorrupt>(&read)) {
      ++scan.kinds[b.kind].corrupt;
      self.corrupt_deleted.fetch_add(1, std::memory_order_relaxed);
      self.record_error(b.path.string() + ": corrupt blob deleted: " + bad->problem);
    } else if (std::holds_alternative<Bytes>(read)) {
      add_to(scan, b.kind, b);
    }
  }
  for (const auto& [kind, counts] : scan.kinds) {
    scan.corrupt += counts.corrupt;
    scan.removed += counts.removed;
    scan.namespaces += counts.namespaces;
  }
  return scan;
}

Result<BlobScan> BlobStore::scan() {
  BlobScan scan = empty_scan();
  for (const CacheKind& kind : cache_kinds()) {
    const std::string name(kind.name);
    std::vector<FoundBlob> blobs;
    std::uint64_t none = 0;
    for (const fs::path& ns : subdirectories(impl_->options.root / name)) {
      ++scan.kinds[name].namespaces;
      ++scan.namespaces;
      collect_blobs(ns, name, blobs, none, /*read_only=*/true);
    }
    for (const FoundBlob& b : blobs) add_to(scan, name, b);
    // What other tools counted, and what this store counted and has not yet added.
    KindUse use = read_kind_use(impl_->options.root / name);
    const KindUse own = impl_->use.snapshot(cache_kind_index(name));
    use += own;
    scan.kinds[name].use = use;
    scan.use += use;
  }
  return scan;
}

Result<BlobScan> BlobStore::clear(std::string_view only_kind) {
  if (!only_kind.empty() && !is_cache_kind(only_kind))
    return make_error("unknown cache kind '" + std::string(only_kind) + "'");
  Impl& self = *impl_;
  BlobScan scan = empty_scan();
  for (const CacheKind& kind : cache_kinds()) {
    if (!only_kind.empty() && kind.name != only_kind) continue;
    const std::string name(kind.name);
    BlobScanCounts& counts = scan.kinds[name];
    if (std::error_code ec; fs::is_directory(self.options.root / name, ec)) reset_kind_use(self.options.root / name);
    for (const fs::path& ns : subdirectories(self.options.root / name)) {
      std::vector<FoundBlob> blobs;
      std::uint64_t temp_removed = 0;
      collect_blobs(ns, name, blobs, temp_removed);
      if (remove_unused_namespace(ns)) {
        counts.removed += blobs.size();
        continue;
      }
      ++counts.namespaces;  // in use by a running tool: left as it is
      for (const FoundBlob& b : blobs) add_to(scan, name, b);
    }
  }
  for (const auto& [kind, counts] : scan.kinds) {
    scan.removed += counts.removed;
    scan.namespaces += counts.namespaces;
  }
  return scan;
}

}  // namespace kiln::cache
