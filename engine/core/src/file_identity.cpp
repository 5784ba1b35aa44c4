#include "kiln/core/file_identity.h"

#include <sys/stat.h>

#include <ctime>

namespace kiln {
namespace {

std::int64_t ns_of(const timespec& t) { return std::int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

}  // namespace

std::string FileIdentity::text() const {
  return std::to_string(device) + " " + std::to_string(inode) + " " + std::to_string(size) + " " +
         std::to_string(mtime_ns) + " " + std::to_string(ctime_ns);
}

std::optional<FileIdentity> file_identity(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{std::uint64_t(st.st_dev), std::uint64_t(st.st_ino), std::uint64_t(st.st_size), ns_of(st.st_mtim),
                      ns_of(st.st_ctim)};
}

std::int64_t wall_clock_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return ns_of(t);
}

}  // namespace kiln
