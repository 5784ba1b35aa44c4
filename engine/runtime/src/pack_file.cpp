#include "kiln/runtime/pack_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pack_check.h"
#include "pack_layout.h"

namespace kiln::runtime {
namespace {

using pack_layout::Header;
using pack_layout::IndexEntry;

// Reads `n` bytes at `at`; false on an error or the end of the file first.
bool read_at(int fd, std::byte* out, std::size_t n, std::uint64_t at) {
  for (std::size_t done = 0; done < n;) {
    const ssize_t got = ::pread(fd, out + done, n - done, off_t(at + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += std::size_t(got);
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<PackFile>> PackFile::open(const std::filesystem::path& path, PackKind kind) {
  std::unique_ptr<PackFile> pack(new PackFile());
  pack->name_ = path.string();
  const std::string& name = pack->name_;
  pack->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (pack->fd_ < 0) return make_error(name + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(pack->fd_, &st) != 0 || !S_ISREG(st.st_mode)) return make_error(name + ": not a regular file");
  const std::uint64_t length = std::uint64_t(st.st_size);
  std::byte start[sizeof(Header)] = {};
  const std::size_t head = length >= sizeof start ? sizeof start : 0;  // shorter: header() says truncated
  errno = 0;
  if (head && !read_at(pack->fd_, start, head, 0))
    return make_error(name + ": cannot read its header: " + (errno ? std::strerror(errno) : "the file ended early"));
  auto h = pack_check::header(name, std::span(start, head), length, kind);
  if (!h) return h.error();
  pack->meta_.resize(h->data_offset);  // inside the file: header() checked it
  if (!read_at(pack->fd_, pack->meta_.data(), pack->meta_.size(), 0))
    return make_error(name + ": cannot read its index and names: " + std::strerror(errno));
  KILN_TRY(pack_check::metadata(name, *h, pack->meta_, length));
  pack->count_ = h->count;
  pack->checksum_ = h->header_checksum;
  const std::uint64_t strings_begin = sizeof(Header) + h->count * sizeof(IndexEntry);
  pack->identity_.assign(reinterpret_cast<const char*>(pack->meta_.data() + strings_begin), h->identity_length);
  return pack;
}

PackFile::~PackFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::optional<std::vector<std::byte>>> PackFile::read(std::string_view name) const {
  const cache::Hash128 key = pack_key(name);
  const auto e = pack_check::find(meta_.data() + sizeof(Header), count_, key);
  if (!e) return std::optional<std::vector<std::byte>>();
  const auto entry = [&] { return name_ + ": entry '" + std::string(name) + "' (" + key.hex().substr(0, 12) + ")"; };
  std::vector<std::byte> payload(e->length);
  if (!read_at(fd_, payload.data(), payload.size(), e->offset))
    return make_error(entry() + " cannot be read whole (the pack changed since it was opened?)");
  if (pack_check::xxh3_of(payload.data(), payload.size()) != e->checksum)
    return make_error(entry() + " is corrupt (checksum mismatch)");
  return std::optional<std::vector<std::byte>>(std::move(payload));
}

}  // namespace kiln::runtime
