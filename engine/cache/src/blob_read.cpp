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

// Removes `path` only if it is still the file we looked at, not a sound blob another process has
// renamed over it since. (A rename between the lstat and the unlink still loses that blob: a miss,
// never wrong data.)
bool unlink_if_same(const std::filesystem::path& path, const struct stat& seen) {
  struct stat now;
  if (::lstat(path.c_str(), &now) != 0 || now.st_ino != seen.st_ino || now.st_dev != seen.st_dev) return false;
  return (S_ISDIR(now.st_mode) ? ::rmdir(path.c_str()) : ::unlink(path.c_str())) == 0;
}

bool read_exact(int fd, std::byte* out, std::size_t size, off_t offset) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, out + done, size - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Files up to this size are read with one call.
constexpr std::size_t kOneReadBytes = 64 * 1024;

}  // namespace

BlobRead read_blob_file(const std::filesystem::path& path, const BlobKey& key, uid_t owner,
                        std::chrono::seconds touch_interval) {
  // O_NONBLOCK: a FIFO planted at a blob path must not block the reader (no effect on files).
  Fd file{::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return BlobAbsent{};
    if (err == ELOOP) {  // a symlink where a blob belongs: not ours to follow, remove it
      struct stat st;
      if (::lstat(path.c_str(), &st) == 0 && unlink_if_same(path, st)) return BlobCorrupt{"symlink in place of a blob"};
    }
    return BlobUnreadable{std::string("cannot open: ") + std::strerror(err)};
  }
  struct stat st;
  if (::fstat(file.fd, &st) != 0) return BlobUnreadable{std::string("cannot stat: ") + std::strerror(errno)};
  if (st.st_uid != owner) return BlobForeign{};
  if (!S_ISREG(st.st_mode)) {
    if (unlink_if_same(path, st)) return BlobCorrupt{"not a regular file"};
    return BlobUnreadable{"not a regular file"};
  }

  // Header first: its checks bound the allocation, whatever the file's size claims. A small file
  // (most: compiled pages, variants) is read whole at once, its size bounding the allocation.
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  const bool whole = size >= blob_format::kHeaderSize && size <= kOneReadBytes;
  Bytes data(whole ? size : std::min(size, blob_format::kHeaderSize));
  std::optional<std::string> problem;
  if (size < blob_format::kHeaderSize || !read_exact(file.fd, data.data(), data.size(), 0)) {
    problem = whole ? "short read" : "truncated header (" + std::to_string(size) + " bytes)";
  } else if (auto header = blob_format::check_header(std::span(data).first(blob_format::kHeaderSize), key, size)) {
    if (header->kind == blob_format::HeaderProblem::kOtherVersion) return BlobUnreadable{header->text};
    problem = header->text;
  } else if (whole) {
    problem = blob_format::check(data, key);
  } else {
    data.resize(size);
    if (!read_exact(file.fd, data.data() + blob_format::kHeaderSize, size - blob_format::kHeaderSize,
                    static_cast<off_t>(blob_format::kHeaderSize)))
      problem = "short read";
    else
      problem = blob_format::check(data, key);
  }
  if (problem) {
    if (unlink_if_same(path, st)) return BlobCorrupt{*problem};
    return BlobUnreadable{*problem + " (could not delete)"};
  }
  if (touch_interval.count() == 0 || std::time(nullptr) - st.st_mtime > touch_interval.count()) {
    const struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    ::futimens(file.fd, times);
  }
  data.erase(data.begin(), data.begin() + blob_format::kHeaderSize);
  return data;
}

}  // namespace kiln::cache
