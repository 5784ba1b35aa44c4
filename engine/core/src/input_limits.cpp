#include "kiln/core/input_limits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kiln {

std::string describe_bytes(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30)) {
    if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(std::uint64_t{1} << 30));
    return text;
  }
  if (bytes >= (std::uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (std::uint64_t{1} << 10)) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

bool input_present(const std::filesystem::path& file) {
  struct stat st {};
  return ::lstat(file.c_str(), &st) == 0;
}

Result<OpenedInput> open_input_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what) {
  const std::string name = file.string();
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_error(name + ": cannot open " + std::string(what) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return make_error(name + ": cannot read " + std::string(what) + ": " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(name + ": not a regular file (" +
                      std::string(S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket") + "); a " +
                      std::string(what) + " is read from a file");
  }
  if (std::uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    return make_error(name + ": " + describe_bytes(std::uint64_t(st.st_size)) + ", more than the " +
                      describe_bytes(max_bytes) + " limit for a " + std::string(what));
  }
  return OpenedInput{fd, std::uint64_t(st.st_size)};
}

Status check_input_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what) {
  auto opened = open_input_file(file, max_bytes, what);
  if (!opened) return opened.error();
  ::close(opened->fd);
  return {};
}

Result<std::string> read_input_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what) {
  const std::string name = file.string();
  auto opened = open_input_file(file, max_bytes, what);
  if (!opened) return opened.error();
  const int fd = opened->fd;
  std::string text(std::size_t(opened->size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int e = errno;
      ::close(fd);
      return make_error(name + ": cannot read " + std::string(what) + ": " + std::strerror(e));
    }
    if (r == 0) break;  // shrank meanwhile: what is there
    got += std::size_t(r);
  }
  // Grown meanwhile: one byte more than the size seen says so, and the limit still holds.
  char extra;
  const bool grew = got == text.size() && ::read(fd, &extra, 1) == 1;
  ::close(fd);
  text.resize(got);
  if (grew) return make_error(name + ": changed while being read; read it again");
  return text;
}

}  // namespace kiln
