#include "kiln/cache/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace kiln::cache {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

Status write_all(int fd, std::span<const std::byte> data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error(n < 0 ? errno_text(errno) : std::string("write made no progress"));
    done += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace

Status make_private_dirs(const std::filesystem::path& dir) {
  if (dir.empty()) return {};
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return {};
    return make_error(dir.string() + ": exists and is not a directory");
  }
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    if (auto s = make_private_dirs(dir.parent_path()); !s) return s;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return make_error(dir.string() + ": cannot create directory: " + errno_text(errno));
  return {};
}

bool is_temp_file_name(std::string_view name) { return name.rfind(".tmp.", 0) == 0; }

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::byte> data) {
  static std::atomic<std::uint64_t> counter{0};
  const std::filesystem::path dir = path.parent_path();
  const std::filesystem::path temp =
      dir / (".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
             path.filename().string());
  for (int attempt = 0;; ++attempt) {
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == ENOENT && attempt == 0) {
        if (auto s = make_private_dirs(dir); !s) return s;
        continue;
      }
      return make_error(temp.string() + ": cannot create: " + errno_text(errno));
    }
    Status written = write_all(fd, data);
    if (written && ::fsync(fd) != 0) written = make_error("fsync: " + errno_text(errno));
    ::close(fd);
    if (!written) {
      ::unlink(temp.c_str());
      return make_error(temp.string() + ": " + written.error().message);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      const int err = errno;
      ::unlink(temp.c_str());
      if (err == ENOENT && attempt == 0) {
        if (auto s = make_private_dirs(dir); !s) return s;
        continue;
      }
      return make_error(path.string() + ": rename failed: " + errno_text(err));
    }
    return {};
  }
}

}  // namespace kiln::cache
