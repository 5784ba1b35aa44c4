#include "editor/file_watcher.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln::editor {
namespace fs = std::filesystem;
namespace {

constexpr std::uint32_t kMask = IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE;

bool ignored(const std::string& name) {
  return name.empty() || name[0] == '.' || name.back() == '~' || name.ends_with(".swp") || name.ends_with(".swx") ||
         name == "4913";  // vim's probe file
}

}  // namespace

Result<std::unique_ptr<FileWatcher>> FileWatcher::open(const fs::path& root) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return make_error(std::string("cannot watch files: inotify: ") + std::strerror(errno));
  std::unique_ptr<FileWatcher> w(new FileWatcher(root, fd));
  w->watch_tree(root);
  if (w->dirs_.empty()) return make_error(root.string() + ": cannot watch (not a directory?)");
  return w;
}

FileWatcher::~FileWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWatcher::watch_tree(const fs::path& dir) {
  const int wd = ::inotify_add_watch(fd_, dir.c_str(), kMask);
  if (wd < 0) return;
  dirs_[wd] = dir;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && !ignored(e.path().filename().string())) watch_tree(e.path());
}

bool FileWatcher::drain(std::map<std::string, FileChange>& pending) {
  alignas(inotify_event) char buffer[16384];
  bool any = false;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n <= 0) return any;
    for (char* p = buffer; p < buffer + n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(p);
      p += sizeof(inotify_event) + ev->len;
      auto dir = dirs_.find(ev->wd);
      if (dir == dirs_.end() || ev->len == 0) continue;
      const std::string name = ev->name;
      if (ignored(name)) continue;
      const fs::path full = dir->second / name;
      if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO))) {
        watch_tree(full);  // a new directory: its files change from now on
        continue;
      }
      if (ev->mask & IN_ISDIR) continue;
      const std::string rel = fs::relative(full, root_).generic_string();
      auto [it, inserted] = pending.try_emplace(rel);
      if (inserted) {
        it->second.path = rel;
        it->second.first_seen = std::chrono::steady_clock::now();
      }
      any = true;
    }
  }
}

std::vector<FileChange> FileWatcher::collect(std::chrono::milliseconds quiet) {
  std::map<std::string, FileChange> pending;
  drain(pending);
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(quiet.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;  // quiet: the burst is over
    drain(pending);
  }
  std::vector<FileChange> batch;
  for (auto& [path, change] : pending) {
    std::error_code ec;
    change.exists = fs::is_regular_file(root_ / path, ec);
    batch.push_back(std::move(change));
  }
  return batch;
}

}  // namespace kiln::editor
