#include "editor/file_watcher.h"

#include <dirent.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <set>

namespace kiln::editor {
namespace fs = std::filesystem;
namespace {

constexpr std::uint32_t kMask = IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE;

// GNU sed -i writes "sed" and six random letters or digits beside the file it edits.
bool sed_temp(const std::string& name) {
  return name.size() == 9 && name.starts_with("sed") &&
         std::all_of(name.begin() + 3, name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

// What editors and tools write beside a file while saving it: hidden files (vim's .name.swp,
// emacs' .#name lock), backups (name~), vim's probe file 4913, emacs' auto-save #name#, JetBrains'
// safe-write copies, sed -i's temp file.
bool ignored(const std::string& name) {
  return name.empty() || name[0] == '.' || name.back() == '~' || name.ends_with(".swp") || name.ends_with(".swx") ||
         name == "4913" || (name.size() > 1 && name.front() == '#' && name.back() == '#') ||
         name.ends_with("___jb_tmp___") || name.ends_with("___jb_old___") || sed_temp(name);
}

std::string join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

}  // namespace

FileWatcher::FileState FileWatcher::state_of(const struct stat& st) {
  return {std::uint64_t(st.st_ino), std::uint64_t(st.st_size),
          std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

Result<std::unique_ptr<FileWatcher>> FileWatcher::open(const fs::path& root) {
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) return make_error(root.string() + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return make_error(root.string() + ": not a directory");
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return make_error(std::string("cannot watch files: inotify: ") + std::strerror(errno));
  std::unique_ptr<FileWatcher> w(new FileWatcher(root, fd));
  w->scan(w->files_);
  if (w->dirs_.empty())
    return make_error(root.string() + ": cannot watch: " + (w->warnings_.empty() ? "" : w->warnings_.front()));
  return w;
}

FileWatcher::~FileWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWatcher::warn(std::string message) { warnings_.push_back(std::move(message)); }

std::vector<std::string> FileWatcher::take_warnings() { return std::exchange(warnings_, {}); }

std::vector<RootEvent> FileWatcher::take_root_events() { return std::exchange(root_events_, {}); }

void FileWatcher::scan(Snapshot& files) {
  std::map<std::pair<dev_t, ino_t>, bool> seen;
  const std::map<int, std::string> before = dirs_;
  dirs_.clear();
  scan_dir("", files, seen);
  // Directories no longer in the tree (moved out, or replaced): their events would carry stale paths.
  for (const auto& [wd, rel] : before)
    if (!dirs_.count(wd)) ::inotify_rm_watch(fd_, wd);
}

void FileWatcher::scan_dir(const std::string& rel, Snapshot& files, std::map<std::pair<dev_t, ino_t>, bool>& seen) {
  const fs::path dir = full(rel);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
  if (!seen.emplace(std::pair{st.st_dev, st.st_ino}, true).second) return;  // a bind mount loop
  // Watch before listing: a file created while the directory is read still raises an event.
  // Re-adding a watched directory returns its descriptor, which now maps to where it is.
  // The root also reports itself going away (deleted, or renamed: its watch would then follow the
  // moved tree, whose paths are no longer the project's).
  const int wd = ::inotify_add_watch(
      fd_, dir.c_str(), kMask | IN_ONLYDIR | (rel.empty() ? IN_DELETE_SELF | IN_MOVE_SELF : IN_DONT_FOLLOW));
  if (wd >= 0) {
    dirs_[wd] = rel;
  } else if (errno == ENOSPC && !warned_watch_limit_) {
    warned_watch_limit_ = true;
    warn(dir.string() +
         ": not watched: the inotify watch limit is reached (raise fs.inotify.max_user_watches); "
         "changes below it are seen only after the next rescan");
  }
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;  // gone meanwhile: its files are reported as removed
  std::vector<std::string> subdirs;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == ".." || ignored(name)) continue;
    const std::string child = join(rel, name);
    struct stat cs {};
    // Symbolic links to files count as the file; links to directories are not followed.
    if (::lstat(full(child).c_str(), &cs) != 0) continue;
    if (S_ISDIR(cs.st_mode)) {
      subdirs.push_back(child);
      continue;
    }
    if (S_ISLNK(cs.st_mode) && ::stat(full(child).c_str(), &cs) != 0) continue;
    if (!S_ISREG(cs.st_mode)) continue;
    files[child] = state_of(cs);
  }
  ::closedir(d);
  for (const std::string& s : subdirs) scan_dir(s, files, seen);
}

bool FileWatcher::drain(std::map<std::string, Pending>& pending) {
  alignas(inotify_event) char buffer[16384];
  bool any = false;
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n <= 0) return any;
    for (char* p = buffer; p < buffer + n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(p);
      p += sizeof(inotify_event) + ev->len;
      any = true;
      if (ev->mask & IN_Q_OVERFLOW) {  // events were lost: only a rescan knows what changed
        rescan_ = true;
        continue;
      }
      auto dir = dirs_.find(ev->wd);
      const bool is_root = dir != dirs_.end() && dir->second.empty();
      if (is_root && (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) && !root_lost_) {
        root_lost_ = true;
        rescan_ = true;  // finds nothing where the root was: every file is reported removed
        root_events_.push_back({false, root_.string() + ": the project directory " +
                                           ((ev->mask & IN_MOVE_SELF) ? "was moved or renamed away" : "was removed") +
                                           "; watching for it to come back"});
      }
      if (ev->mask & IN_IGNORED) {  // the directory is gone
        dirs_.erase(ev->wd);
        continue;
      }
      if (dir == dirs_.end() || ev->len == 0) continue;
      const std::string name = ev->name;
      if (ignored(name)) continue;
      if (ev->mask & IN_ISDIR) {  // created, deleted, moved in or out: the rescan lists its files
        rescan_ = true;
        continue;
      }
      const std::string rel = join(dir->second, name);
      const auto now = std::chrono::steady_clock::now();
      auto [it, inserted] = pending.try_emplace(rel);
      if (inserted) {
        it->second.change.path = rel;
        it->second.change.first_seen = now;
      }
      // Closed after writing, or renamed into place: what the file is now is all there is. A
      // write still open, a creation or a removal may have more to come.
      it->second.complete = (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0;
      it->second.last_event = now;
    }
  }
}

std::vector<FileChange> FileWatcher::collect(std::chrono::milliseconds quiet) {
  const auto burst_start = std::chrono::steady_clock::now();
  std::map<std::string, Pending> pending;
  drain(pending);
  for (;;) {
    // How long the batch still waits: nothing when every file is complete (events already
    // queued still join it), else until the last event of an incomplete file is `quiet` old.
    // Directory events and lost queues wait for quiet too: the rescan should see the tree settled.
    auto wait = std::chrono::milliseconds(0);
    const auto now = std::chrono::steady_clock::now();
    const bool settle = rescan_ || pending.empty();
    for (const auto& [path, p] : pending)
      if (!p.complete)
        wait = std::max(wait, std::chrono::duration_cast<std::chrono::milliseconds>(p.last_event + quiet - now));
    if (settle) wait = quiet;
    pollfd p{fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(wait.count(), 0)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;  // complete, or quiet: the burst is over
    drain(pending);
  }
  // A lost root that is a directory again (re-created, or moved back) is watched and read again.
  struct stat root_st {};
  if (root_lost_ && ::stat(root_.c_str(), &root_st) == 0 && S_ISDIR(root_st.st_mode)) {
    root_lost_ = false;
    rescan_ = true;
    root_events_.push_back({true, root_.string() + ": the project directory is back; watching it again"});
  }
  auto mark = [&](const std::string& path) {
    auto [it, inserted] = pending.try_emplace(path);
    if (inserted) it->second.change = {path, false, burst_start};
  };
  if (rescan_) {
    rescan_ = false;
    Snapshot now;
    scan(now);
    for (const auto& [path, state] : files_)
      if (auto it = now.find(path); it == now.end() || !(it->second == state)) mark(path);
    for (const auto& [path, state] : now)
      if (!files_.count(path)) mark(path);
    files_ = std::move(now);
  } else {
    for (const auto& [path, change] : pending) {
      struct stat st {};
      if (::stat(full(path).c_str(), &st) == 0 && S_ISREG(st.st_mode))
        files_[path] = state_of(st);
      else
        files_.erase(path);
    }
  }
  std::vector<FileChange> batch;
  batch.reserve(pending.size());
  for (auto& [path, p] : pending) {
    p.change.exists = files_.count(path) > 0;
    batch.push_back(std::move(p.change));
  }
  return batch;
}

}  // namespace kiln::editor
