#include "kiln/cache/private_files.h"

#include <sys/stat.h>
#include <unistd.h>

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
    KILN_TRY(make_private_dirs(dir.parent_path()));
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return make_error(dir.string() + ": cannot create directory: " + errno_text(errno));
  return {};
}

Status use_private_dir(const std::filesystem::path& dir) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return make_error(dir.string() + ": cannot stat: " + errno_text(errno));
    KILN_TRY(make_private_dirs(dir));
    if (::lstat(dir.c_str(), &st) != 0) return make_error(dir.string() + ": cannot stat: " + errno_text(errno));
  }
  if (S_ISLNK(st.st_mode))
    return make_error(dir.string() + ": is a symbolic link; refusing to use it as a cache directory");
  if (!S_ISDIR(st.st_mode)) return make_error(dir.string() + ": exists and is not a directory");
  const uid_t me = ::geteuid();
  if (st.st_uid != me)
    return make_error(dir.string() + ": owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                      std::to_string(me) + "; refusing to use it");
  if ((st.st_mode & 077) != 0) {
    if (::chmod(dir.c_str(), 0700) != 0)
      return make_error(dir.string() + ": cannot make it private: " + errno_text(errno));
    make_tree_private(dir);
  }
  return {};
}

namespace {

// Takes group's and others' bits from `path` when it is this user's and not a link; true when it
// is a directory that had any (its contents may be open too).
bool take_others_bits(const std::filesystem::path& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode) || (st.st_mode & 077) == 0 || st.st_uid != ::geteuid())
    return false;
  (void)::chmod(path.c_str(), st.st_mode & 07700);
  return S_ISDIR(st.st_mode);
}

}  // namespace

void make_tree_private(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Symbolic links are neither followed nor changed; only bits are taken away, so an entry swapped
  // for a link meanwhile loses nothing it should keep.
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec))
    (void)take_others_bits(it->path());
}

void make_open_entries_private(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (take_others_bits(it->path())) make_tree_private(it->path());
}

bool is_temp_file_name(std::string_view name) { return name.rfind(".tmp.", 0) == 0; }

Status write_file_atomic(const std::filesystem::path& path, std::span<const std::byte> data, Durability durability) {
  // The one temp-file-fsync-rename mechanism (core's), private to the user. A pruner may remove the
  // directory concurrently: then it is made again (0700) and the write tried once more.
  for (int attempt = 0;; ++attempt) {
    Status written = write_file_atomically(path, data, 0600, durability);
    std::error_code ec;
    if (written || attempt > 0 || std::filesystem::is_directory(path.parent_path(), ec)) return written;
    KILN_TRY(make_private_dirs(path.parent_path()));
  }
}

}  // namespace kiln::cache
