#include "kiln/core/project_paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace kiln {
namespace fs = std::filesystem;

Result<std::string> project_relative_name(std::string_view name) {
  if (name.empty()) return make_error("an empty path");
  const fs::path p(name);
  if (p.is_absolute())
    return make_error("'" + std::string(name) + "' is an absolute path: paths are relative to the project root");
  const fs::path normal = p.lexically_normal();
  if (normal.empty() || *normal.begin() == ".." || normal == ".")
    return make_error("'" + std::string(name) + "' leaves the project: paths must stay inside the project root");
  return normal.generic_string();
}

bool plain_relative(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string normal_join(const std::string& normal_base, std::string_view rel) {
  if (!plain_relative(rel)) return (fs::path(normal_base) / rel).lexically_normal().string();
  if (normal_base.empty() || normal_base == ".") return std::string(rel);
  std::string out;
  out.reserve(normal_base.size() + 1 + rel.size());
  out += normal_base;
  if (out.back() != '/') out += '/';
  out += rel;
  return out;
}

namespace {

// `absolute` with every symbolic link resolved, as fs::weakly_canonical gives it. An existing path
// is walked once by the kernel (an O_PATH open) and named by its descriptor's link in /proc: three
// system calls, where weakly_canonical makes two or three per component. A path that is not there
// (whose existing prefix is resolved and the rest kept) or a system without /proc takes
// weakly_canonical.
fs::path resolve_links(const fs::path& absolute, std::error_code& ec) {
  ec.clear();
  if (const int fd = ::open(absolute.c_str(), O_PATH | O_CLOEXEC); fd >= 0) {
    char proc[32], target[4096];
    std::snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    const ssize_t n = ::readlink(proc, target, sizeof target);
    ::close(fd);
    const std::string_view name(target, n > 0 ? std::size_t(n) : 0);
    constexpr std::string_view kDeleted = " (deleted)";  // removed since the open: say it as it is now
    if (n > 0 && std::size_t(n) < sizeof target && name.front() == '/' &&
        !(name.size() >= kDeleted.size() && name.substr(name.size() - kDeleted.size()) == kDeleted))
      return fs::path(name);
  }
  return fs::weakly_canonical(absolute, ec);
}

}  // namespace

std::vector<fs::path> canonical_roots(const std::vector<fs::path>& roots) {
  std::vector<fs::path> out;
  for (const fs::path& r : roots) {
    std::error_code ec;
    fs::path c = resolve_links(fs::absolute(r, ec), ec);
    if (ec) c = fs::absolute(r, ec).lexically_normal();
    out.push_back(c);
  }
  return out;
}

bool resolves_inside(const fs::path& file, const std::vector<fs::path>& roots, fs::path* resolved) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec);
  if (ec) return false;
  fs::path target = resolve_links(absolute, ec);
  if (ec) return false;
  if (resolved) *resolved = target;
  for (const fs::path& root : roots) {
    auto r = root.begin(), t = target.begin();
    while (r != root.end() && !r->empty() && t != target.end() && *r == *t) ++r, ++t;
    if (r == root.end() || r->empty()) return true;  // every component of the root matched
  }
  return false;
}

namespace {

void list_dir(const fs::path& root, const std::string& rel, const std::string& extension, std::vector<std::string>& out,
              int depth) {
  if (depth > 64) return;  // deeper than any project: a bind-mount loop
  DIR* d = ::opendir((root / rel).c_str());
  if (!d) return;
  std::vector<std::string> subdirs;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.') continue;
    const std::string child = rel + "/" + name;
    // The entry's own type (links not followed), from the listing where the file system gives it.
    bool is_dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st {};
      if (::lstat((root / child).c_str(), &st) != 0) continue;
      is_dir = S_ISDIR(st.st_mode);
    }
    // Whatever carries the extension is an input, whatever its type: a directory, FIFO, device or
    // dangling link named like one is listed so that reading it refuses it by name, never skipped.
    // (A name not starting with '.' has the extension after its last '.': a suffix test says it.)
    const bool named_as_input = !extension.empty() && name.size() > extension.size() &&
                                name.compare(name.size() - extension.size(), extension.size(), extension) == 0;
    if (is_dir && !named_as_input) {
      subdirs.push_back(child);
      continue;
    }
    if (named_as_input || (extension.empty() && !is_dir)) out.push_back(child);
  }
  ::closedir(d);
  for (const std::string& s : subdirs) list_dir(root, s, extension, out, depth + 1);
}

}  // namespace

std::vector<std::string> list_project_files(const fs::path& root, const std::string& dir,
                                            const std::string& extension) {
  std::vector<std::string> out;
  list_dir(root, fs::path(dir).lexically_normal().generic_string(), extension, out, 0);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> project_prefixes(const std::filesystem::path& root) {
  std::vector<std::string> prefixes;
  std::error_code ec;
  const auto add = [&](const std::filesystem::path& p) {
    std::string s = p.generic_string();
    if (s.empty() || s == "." || s == "./") return;
    if (s.back() != '/') s += '/';
    if (std::find(prefixes.begin(), prefixes.end(), s) == prefixes.end()) prefixes.push_back(s);
  };
  add(root.lexically_normal());
  if (const auto absolute = std::filesystem::absolute(root, ec).lexically_normal(); !ec) add(absolute);
  if (const auto canonical = std::filesystem::canonical(root, ec); !ec) add(canonical);
  return prefixes;
}

std::string relative_to_project(std::string text, const std::vector<std::string>& prefixes) {
  for (const auto& prefix : prefixes)
    for (std::size_t at = 0; (at = text.find(prefix, at)) != std::string::npos;) {
      if (at == 0 || std::string_view(" \n'\"(").find(text[at - 1]) != std::string_view::npos)
        text.erase(at, prefix.size());
      else
        at += prefix.size();
    }
  return text;
}

}  // namespace kiln
