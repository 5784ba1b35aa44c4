#include "kiln/trust/secret_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kiln::trust {
namespace fs = std::filesystem;
namespace {

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

}  // namespace

Result<std::vector<std::byte>> read_secret_file(const fs::path& path, const std::string& what, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return make_error(path.string() + ": cannot open " + what + ": " + std::strerror(errno));
  struct stat st;
  std::string problem;
  if (::fstat(fd, &st) != 0)
    problem = std::string("cannot stat it: ") + std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    problem = "not a regular file";
  else if ((st.st_mode & 077) != 0)
    problem = "others may read it (mode " + mode_text(st.st_mode) + "): chmod 600 " + path.string();
  else if (st.st_uid != ::geteuid() && st.st_uid != 0)
    problem = "it belongs to another user";
  else if (std::uint64_t(st.st_size) > max_bytes)
    problem = "larger than " + std::to_string(max_bytes) + " bytes";
  if (!problem.empty()) {
    ::close(fd);
    return make_error(path.string() + ": " + what + " refused: " + problem);
  }
  std::vector<std::byte> bytes(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += std::size_t(n);
  }
  ::close(fd);
  if (got != bytes.size()) return make_error(path.string() + ": cannot read " + what);
  return bytes;
}

Status write_secret_file(const fs::path& path, const std::string& what, const std::string& bytes) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const fs::path temp = dir / (".tmp.key." + std::to_string(::getpid()) + "." + path.filename().string());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return make_error(temp.string() + ": cannot create " + what + ": " + std::strerror(errno));
  std::size_t put = 0;
  while (put < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + put, bytes.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    put += std::size_t(n);
  }
  const bool written = put == bytes.size() && ::fsync(fd) == 0;
  const int write_errno = errno;
  ::close(fd);
  if (!written) {
    ::unlink(temp.c_str());
    return make_error(path.string() + ": cannot write " + what + ": " + std::strerror(write_errno));
  }
  // link() fails when the name exists: a key already there stays.
  const int linked = ::link(temp.c_str(), path.c_str());
  const int link_errno = errno;
  ::unlink(temp.c_str());
  if (linked != 0) {
    if (link_errno == EEXIST) return make_error(path.string() + ": already exists (a key is never overwritten)");
    return make_error(path.string() + ": cannot create " + what + ": " + std::strerror(link_errno));
  }
  return {};
}

Result<std::vector<std::byte>> random_bytes(std::size_t n) {
  std::vector<std::byte> out(n);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return make_error(std::string("no randomness from the kernel: ") + std::strerror(errno));
    got += std::size_t(r);
  }
  return out;
}

}  // namespace kiln::trust
