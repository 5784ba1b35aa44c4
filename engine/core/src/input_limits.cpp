#include "kiln/core/input_limits.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <utility>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kiln {

std::string describe_bytes(std::uint64_t bytes) {
  static constexpr struct {
    int shift;
    const char* name;
  } kUnits[] = {{30, "GiB"}, {20, "MiB"}, {10, "KiB"}};
  for (const auto& unit : kUnits) {
    const std::uint64_t size = std::uint64_t{1} << unit.shift;
    if (bytes < size) continue;
    if (bytes % size == 0) return std::to_string(bytes >> unit.shift) + " " + unit.name;
    char text[64];
    const int n = std::snprintf(text, sizeof text, "%.1f %s", double(bytes) / double(size), unit.name);
    // "1.0 MiB" for 1 MiB and a byte would read as a whole unit: the exact count says it is not.
    if (std::string_view(text, std::size_t(n)).find(".0 ") != std::string_view::npos)
      std::snprintf(text + n, sizeof text - std::size_t(n), " (%llu bytes)", static_cast<unsigned long long>(bytes));
    return text;
  }
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

namespace {

// Reads the opened input into `dst`, which has room for one byte more than its size, and closes
// it: how many arrived, or an error naming the file (also when it grew while read). Asking for the
// extra byte in the same read says whether the file grew, without a read to find its end.
Result<std::size_t> read_opened(const OpenedInput& opened, char* dst, const std::string& name, std::string_view what) {
  const int fd = opened.fd;
  const auto room = std::size_t(opened.size) + 1;
  std::size_t got = 0;
  while (got < room) {
    const ssize_t r = ::read(fd, dst + got, room - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int e = errno;
      ::close(fd);
      return make_error(name + ": cannot read " + std::string(what) + ": " + std::strerror(e));
    }
    if (r == 0) break;  // the end; short of the size when it shrank meanwhile: what is there
    got += std::size_t(r);
    // A regular file reads short only at its end: ending at the size seen, it did not grow.
    if (got == opened.size) break;
  }
  ::close(fd);
  // Grown meanwhile: more than the size seen, and the limit still holds.
  if (got > opened.size) return make_error(name + ": changed while being read; read it again");
  return got;
}

}  // namespace

Result<std::string> read_input_file(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what) {
  const std::string name = file.string();
  auto opened = open_input_file(file, max_bytes, what);
  if (!opened) return opened.error();
  std::string text(std::size_t(opened->size) + 1, '\0');  // a byte to see growth by
  auto got = read_opened(*opened, text.data(), name, what);
  if (!got) return got.error();
  text.resize(*got);
  return text;
}

Result<InputBytes> read_input_bytes(const std::filesystem::path& file, std::uint64_t max_bytes, std::string_view what) {
  const std::string name = file.string();
  auto opened = open_input_file(file, max_bytes, what);
  if (!opened) return opened.error();
  InputBytes out = InputBytes::allocate(std::size_t(opened->size) + 1);  // a byte to see growth by
  if (!out.data()) {
    ::close(opened->fd);
    return make_error(name + ": no memory for " + describe_bytes(opened->size));
  }
  auto got = read_opened(*opened, reinterpret_cast<char*>(out.data()), name, what);
  if (!got) return got.error();
  out.set_size(*got);
  return out;
}

// Beyond this, a buffer is an anonymous mapping populated in one call: faulting a large buffer in
// page by page during the read costs more than the read itself.
constexpr std::size_t kPopulateBytes = std::size_t{1} << 20;

InputBytes InputBytes::allocate(std::size_t capacity) {
  InputBytes out;
  if (capacity >= kPopulateBytes) {
    void* p = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) return out;
    out.data_ = static_cast<std::byte*>(p);
    out.mapped_ = capacity;
  } else {
    out.data_ = new (std::nothrow) std::byte[std::max<std::size_t>(1, capacity)];
  }
  return out;
}

InputBytes& InputBytes::operator=(InputBytes&& other) noexcept {
  if (this != &other) {
    this->~InputBytes();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

InputBytes::~InputBytes() {
  if (mapped_)
    ::munmap(data_, mapped_);
  else
    delete[] data_;
  data_ = nullptr;
  mapped_ = 0;
}

}  // namespace kiln
