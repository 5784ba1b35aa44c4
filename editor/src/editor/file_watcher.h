#pragma once
// Watches a project tree with inotify for the editor: recursive (new directories are watched as
// they appear), and robust to how editors save: an in-place write, a temp file renamed over the
// original, a delete and re-create all end as one change of the file, reported with whether it
// exists once the burst is over. There is no fixed wait: a file closed after writing or renamed
// into place is complete, and a batch is handed over as soon as every file in it is; only a file
// still being written, or gone (it may be re-created), waits — until it is complete or the tree
// has been quiet for a moment. The files editors and tools write beside a file while saving it
// are ignored: hidden and backup files (".name", "name~", "*.swp"), "#name#", JetBrains'
// "name___jb_tmp___" and "name___jb_old___", sed -i's "sedXXXXXX".
//
// The root itself going away — deleted, renamed or moved — is an event of its own (take_root_events),
// and every file is then reported removed; when a directory is at the root's path again (re-created,
// or moved back) it is watched and read again, its files reported as added.
//
// Structure changes are reported file by file: a directory deleted, renamed, moved in or out of
// the tree reports each file it held as removed or added. The watcher keeps a snapshot of the
// tree (path -> inode, size, mtime) for this; after a directory event, or when the kernel's event
// queue overflowed and events were lost, it rescans the tree and reports every file that differs
// from the snapshot. Symbolic links to directories are not followed, so a link loop cannot make
// the walk endless, and nothing in here throws: a directory that vanishes mid-walk is skipped.
//
// Thread-safety: owned by the editor's event loop thread.

#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::editor {

// The project root going away (deleted, renamed, moved) or coming back.
struct RootEvent {
  bool back = false;
  std::string message;  // names the root and what happened
};

struct FileChange {
  std::string path;  // relative to the root, generic form
  bool exists = false;
  std::chrono::steady_clock::time_point first_seen;  // the first raw event of the burst
};

class FileWatcher {
 public:
  static Result<std::unique_ptr<FileWatcher>> open(const std::filesystem::path& root);
  ~FileWatcher();
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  int fd() const { return fd_; }  // readable when events wait
  // Reads what is waiting, then keeps reading while some file of the batch is not complete, for at
  // most `quiet` after its last event; the batch, sorted by path.
  std::vector<FileChange> collect(std::chrono::milliseconds quiet);
  // Problems met while watching (a watch limit reached, a lost event queue), each once, in order.
  std::vector<std::string> take_warnings();
  // The root went away or came back since the last call, in order. While it is away every file is
  // reported removed, and collect() looks for it on each call: the caller calls it every
  // `root_lost()` poll interval, not only when fd() is readable (nothing is watched meanwhile).
  std::vector<RootEvent> take_root_events();
  bool root_lost() const { return root_lost_; }
  std::size_t watched_directories() const { return dirs_.size(); }

 private:
  struct FileState {
    std::uint64_t inode = 0;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    bool operator==(const FileState&) const = default;
  };
  using Snapshot = std::map<std::string, FileState>;
  static FileState state_of(const struct stat& st);

  FileWatcher(std::filesystem::path root, int fd) : root_(std::move(root)), fd_(fd) {}
  // Watches every directory under the root not yet watched and forgets watches of directories
  // that are gone or replaced; fills `files` with the regular files found.
  void scan(Snapshot& files);
  void scan_dir(const std::string& rel, Snapshot& files, std::map<std::pair<dev_t, ino_t>, bool>& seen);
  struct Pending {
    FileChange change;
    bool complete = false;  // its last event closed a write or renamed it into place
    std::chrono::steady_clock::time_point last_event;
  };
  bool drain(std::map<std::string, Pending>& pending);  // false when nothing was read
  std::filesystem::path full(const std::string& rel) const { return rel.empty() ? root_ : root_ / rel; }
  void warn(std::string message);

  std::filesystem::path root_;
  int fd_ = -1;
  std::map<int, std::string> dirs_;  // watch descriptor -> directory, relative to the root ("" is the root)
  Snapshot files_;                   // the tree as last reported
  bool rescan_ = false;              // a directory changed or events were lost since the last batch
  std::vector<std::string> warnings_;
  bool warned_watch_limit_ = false;
  bool root_lost_ = false;
  std::vector<RootEvent> root_events_;
};

}  // namespace kiln::editor
