#include "payload_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace kiln::runtime {
namespace {

// An anonymous file in the temp directory: O_TMPFILE where the file system has it, else a named
// one unlinked at once.
int anonymous_file() {
  const char* tmp = std::getenv("TMPDIR");
  const std::string where = tmp && *tmp ? tmp : "/tmp";
  int fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = (std::filesystem::path(where) / "kiln-pack-XXXXXX").string();
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

}  // namespace

PayloadSpill::~PayloadSpill() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint64_t PayloadSpill::append(std::span<const std::byte> bytes) {
  const std::uint64_t at = size_;
  size_ += bytes.size();
  if (!error_.empty()) return at;
  if (fd_ < 0) {
    memory_.insert(memory_.end(), bytes.begin(), bytes.end());
    if (memory_.size() > kSpillAfterBytes && !spill_failed_ && spill_to_file()) std::vector<std::byte>().swap(memory_);
    return at;
  }
  write_all(bytes);
  return at;
}

bool PayloadSpill::spill_to_file() {
  // When the temp directory cannot take them, the payloads stay in memory: heavier, never wrong.
  fd_ = anonymous_file();
  if (fd_ >= 0 && write_all(memory_)) return true;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  error_.clear();
  spill_failed_ = true;
  return false;
}

bool PayloadSpill::write_all(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = std::string("cannot keep the pack's entries in a temp file: ") + std::strerror(n < 0 ? errno : ENOSPC);
      return false;
    }
    bytes = bytes.subspan(std::size_t(n));
  }
  return true;
}

Status PayloadSpill::read_at(std::uint64_t offset, std::span<std::byte> into) const {
  while (!into.empty()) {
    const ssize_t n = ::pread(fd_, into.data(), into.size(), off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return make_error(std::string("cannot read the pack's entries back from their temp file: ") +
                        (n < 0 ? std::strerror(errno) : "it is shorter than what was written"));
    into = into.subspan(std::size_t(n));
    offset += std::uint64_t(n);
  }
  return {};
}

}  // namespace kiln::runtime
