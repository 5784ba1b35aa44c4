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

// The fields of STATS in their order; a file written before the remote fields existed has the
// first five.
struct FieldName {
  const char* name;
  std::uint64_t KindUse::*member;
  KindUseCounters::Field counter;
};
constexpr FieldName kFieldNames[] = {
    {"hits", &KindUse::hits, KindUseCounters::kHits},
    {"misses", &KindUse::misses, KindUseCounters::kMisses},
    {"corrupt", &KindUse::corrupt, KindUseCounters::kCorrupt},
    {"writes", &KindUse::writes, KindUseCounters::kWrites},
    {"evictions", &KindUse::evictions, KindUseCounters::kEvictions},
    {"remote_hits", &KindUse::remote_hits, KindUseCounters::kRemoteHits},
    {"remote_misses", &KindUse::remote_misses, KindUseCounters::kRemoteMisses},
    {"remote_rejected", &KindUse::remote_rejected, KindUseCounters::kRemoteRejected},
    {"remote_errors", &KindUse::remote_errors, KindUseCounters::kRemoteErrors},
    {"remote_writes", &KindUse::remote_writes, KindUseCounters::kRemoteWrites},
    {"remote_bytes_read", &KindUse::remote_bytes_read, KindUseCounters::kRemoteBytesRead},
    {"remote_bytes_written", &KindUse::remote_bytes_written, KindUseCounters::kRemoteBytesWritten},
    {"remote_untrusted", &KindUse::remote_untrusted, KindUseCounters::kRemoteUntrusted},
};
constexpr int kBaseFields = 5;

KindUse parse(const std::string& text) {
  KindUse use;
  std::istringstream in(text);
  std::string name;
  std::uint64_t value = 0;
  int fields = 0;
  while (in >> name >> value) {
    const FieldName* field = nullptr;
    for (const FieldName& f : kFieldNames)
      if (name == f.name) field = &f;
    if (!field) return {};
    use.*(field->member) = value;
    ++fields;
  }
  if (!in.eof() || fields < kBaseFields) return {};
  return use;
}

KindUse read_unlocked(const fs::path& kind_dir) {
  const int fd = ::open((kind_dir / kFile).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  char buffer[1024];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (n <= 0 || std::size_t(n) == sizeof buffer) return {};
  return parse(std::string(buffer, std::size_t(n)));
}

}  // namespace

KindUse KindUseCounters::snapshot(int kind) const {
  KindUse use;
  if (kind < 0 || std::size_t(kind) >= kMaxKinds) return use;
  for (const FieldName& f : kFieldNames) use.*(f.member) = counts_[kind][f.counter].load(std::memory_order_relaxed);
  return use;
}

void merge_kind_use(const fs::path& kind_dir, const KindUse& use) {
  std::uint64_t any = 0;
  for (const FieldName& f : kFieldNames) any |= use.*(f.member);
  if (!any) return;
  DirLock lock(kind_dir);
  if (!lock.held()) return;
  KindUse total = read_unlocked(kind_dir);
  std::string text;
  for (const FieldName& f : kFieldNames) {
    total.*(f.member) += use.*(f.member);
    text += std::string(f.name) + " " + std::to_string(total.*(f.member)) + "\n";
  }
  // Renamed, not flushed: every process that used the cache merges into this file at its exit, and
  // an fsync there was a millisecond of a one-line script run; a crash may lose the last counts
  // (a missing or short file reads as zeros), never the entries.
  (void)write_file_atomic(kind_dir / kFile, std::as_bytes(std::span(text.data(), text.size())),
                          Durability::kRenamedOnly);
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
