#pragma once
// Watches a project tree with inotify for the editor: recursive (new directories are watched as
// they appear), debounced (a burst of events becomes one batch once the tree has been quiet for a
// moment), and robust to how editors save: an in-place write, a temp file renamed over the
// original, a delete and re-create all end as one change of the file, reported with whether it
// exists once the burst is over. Hidden and backup files (".name", "name~", "*.swp") are ignored.
//
// Thread-safety: owned by the editor's event loop thread.

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::editor {

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
  // Reads what is waiting, then keeps reading until `quiet` passes without an event; the batch,
  // sorted by path.
  std::vector<FileChange> collect(std::chrono::milliseconds quiet);

 private:
  FileWatcher(std::filesystem::path root, int fd) : root_(std::move(root)), fd_(fd) {}
  void watch_tree(const std::filesystem::path& dir);
  bool drain(std::map<std::string, FileChange>& pending);  // false when nothing was read

  std::filesystem::path root_;
  int fd_ = -1;
  std::map<int, std::filesystem::path> dirs_;  // watch descriptor -> directory
};

}  // namespace kiln::editor
