#include "fuzz_target.h"

#include <sys/mman.h>
#include <unistd.h>

namespace kiln::fuzz {

std::map<std::string, Body>& registry() {
  static std::map<std::string, Body> targets;
  return targets;
}

MemoryFile::MemoryFile(std::span<const std::uint8_t> data) {
  fd_ = ::memfd_create("kiln-fuzz", MFD_CLOEXEC);
  if (fd_ < 0) contract_broken("memfd_create failed", __FILE__, __LINE__);
  for (std::size_t written = 0; written < data.size();) {
    const ssize_t w = ::write(fd_, data.data() + written, data.size() - written);
    if (w <= 0) contract_broken("writing the memory file failed", __FILE__, __LINE__);
    written += std::size_t(w);
  }
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemoryFile::~MemoryFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace kiln::fuzz
