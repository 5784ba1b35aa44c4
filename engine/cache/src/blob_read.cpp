#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "blob_format.h"
#include "blob_store_impl.h"

namespace kiln::cache {
namespace {

// Removes `path` only if it is still the file we read, not a sound blob another process has
// renamed over it since.
void unlink_if_same(const std::filesystem::path& path, const struct stat& read) {
  struct stat now;
  if (::lstat(path.c_str(), &now) == 0 && now.st_ino == read.st_ino && now.st_dev == read.st_dev)
    ::unlink(path.c_str());
}

}  // namespace

BlobRead read_blob_file(const std::filesystem::path& path, const BlobKey& key, uid_t owner,
                        std::chrono::seconds touch_interval) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return BlobAbsent{};
    return BlobCorrupt{std::string("cannot open: ") + std::strerror(errno)};
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return BlobCorrupt{"not a regular file"};
  }
  if (st.st_uid != owner) {
    ::close(fd);
    return BlobForeign{};
  }
  Bytes data(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pread(fd, data.data() + done, data.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  data.resize(done);
  if (auto problem = blob_format::check(data, key)) {
    ::close(fd);
    unlink_if_same(path, st);
    return BlobCorrupt{*problem};
  }
  if (touch_interval.count() == 0 || std::time(nullptr) - st.st_mtime > touch_interval.count()) {
    const struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    ::futimens(fd, times);
  }
  ::close(fd);
  data.erase(data.begin(), data.begin() + blob_format::kHeaderSize);
  return data;
}

}  // namespace kiln::cache
