#include "kiln/core/atomic_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace kiln {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

AtomicOutput::AtomicOutput(std::filesystem::path target) : target_(std::move(target)) {
  static std::atomic<std::uint64_t> counter{0};
  const std::filesystem::path dir = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
  temp_ = dir / (".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
                 target_.filename().string());
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) ::unlink(temp_.c_str());
}

Status AtomicOutput::commit(Durability durability) {
  const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(target_.string() + ": nothing was written (" + errno_text(errno) + ")");
  const bool synced = durability == Durability::kRenamedOnly || ::fsync(fd) == 0;
  const int sync_err = errno;
  ::close(fd);
  if (!synced) return make_error(target_.string() + ": cannot flush to disk: " + errno_text(sync_err));
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    return make_error(target_.string() + ": cannot replace: " + errno_text(errno));
  committed_ = true;
  return {};
}

Status write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> data, unsigned mode,
                             Durability durability) {
  return write_file_atomically(
      path, [&](const ByteSink& sink) { return sink(data); }, mode, durability);
}

Status write_file_atomically(const std::filesystem::path& path, const std::function<Status(const ByteSink&)>& produce,
                             unsigned mode, Durability durability) {
  AtomicOutput out(path);
  const int fd = ::open(out.temp_path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return make_error(path.string() + ": cannot create: " + errno_text(errno));
  const Status produced = produce([&](std::span<const std::byte> data) -> Status {
    std::size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return make_error(path.string() + ": cannot write: " + errno_text(n < 0 ? errno : ENOSPC));
      done += std::size_t(n);
    }
    return {};
  });
  ::close(fd);
  if (!produced) return produced;  // the temp file goes with `out`
  return out.commit(durability);
}

}  // namespace kiln
