#include "kiln/cache/private_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "kiln/core/atomic_output.h"

namespace kiln::cache {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

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
  // The one temp-file-fsync-rename mechanism (core's), private to the user. A pruner may remove the
  // directory concurrently: then it is made again (0700) and the write tried once more.
  for (int attempt = 0;; ++attempt) {
    Status written = write_file_atomically(path, data, 0600);
    std::error_code ec;
    if (written || attempt > 0 || std::filesystem::is_directory(path.parent_path(), ec)) return written;
    if (auto made = make_private_dirs(path.parent_path()); !made) return made;
  }
}

}  // namespace kiln::cache
