#include "kind_use.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kiln/cache/private_files.h"

namespace kiln::cache {
namespace fs = std::filesystem;
namespace {

constexpr const char* kFile = "STATS";

// A lock on the kind's directory itself: no lock file to leave behind.
class DirLock {
 public:
  explicit DirLock(const fs::path& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

KindUse parse(const std::string& text) {
  KindUse use;
  std::istringstream in(text);
  std::string name;
  std::uint64_t value = 0;
  int fields = 0;
  while (in >> name >> value) {
    if (name == "hits")
      use.hits = value;
    else if (name == "misses")
      use.misses = value;
    else if (name == "corrupt")
      use.corrupt = value;
    else if (name == "writes")
      use.writes = value;
    else if (name == "evictions")
      use.evictions = value;
    else
      return {};
    ++fields;
  }
  if (!in.eof() || fields != 5) return {};
  return use;
}

KindUse read_unlocked(const fs::path& kind_dir) {
  const int fd = ::open((kind_dir / kFile).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  char buffer[512];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (n <= 0 || std::size_t(n) == sizeof buffer) return {};
  return parse(std::string(buffer, std::size_t(n)));
}

}  // namespace

KindUse KindUseCounters::snapshot(int kind) const {
  KindUse use;
  if (kind < 0 || std::size_t(kind) >= kMaxKinds) return use;
  const auto& c = counts_[kind];
  use.hits = c[kHits].load(std::memory_order_relaxed);
  use.misses = c[kMisses].load(std::memory_order_relaxed);
  use.corrupt = c[kCorrupt].load(std::memory_order_relaxed);
  use.writes = c[kWrites].load(std::memory_order_relaxed);
  use.evictions = c[kEvictions].load(std::memory_order_relaxed);
  return use;
}

void merge_kind_use(const fs::path& kind_dir, const KindUse& use) {
  if (use.hits + use.misses + use.corrupt + use.writes + use.evictions == 0) return;
  DirLock lock(kind_dir);
  if (!lock.held()) return;
  KindUse total = read_unlocked(kind_dir);
  total.hits += use.hits;
  total.misses += use.misses;
  total.corrupt += use.corrupt;
  total.writes += use.writes;
  total.evictions += use.evictions;
  const std::string text = "hits " + std::to_string(total.hits) + "\nmisses " + std::to_string(total.misses) +
                           "\ncorrupt " + std::to_string(total.corrupt) + "\nwrites " + std::to_string(total.writes) +
                           "\nevictions " + std::to_string(total.evictions) + "\n";
  (void)write_file_atomic(kind_dir / kFile, std::as_bytes(std::span(text.data(), text.size())));
}

KindUse read_kind_use(const fs::path& kind_dir) {
  DirLock lock(kind_dir);
  return read_unlocked(kind_dir);
}

void reset_kind_use(const fs::path& kind_dir) {
  DirLock lock(kind_dir);
  ::unlink((kind_dir / kFile).c_str());
}

}  // namespace kiln::cache
