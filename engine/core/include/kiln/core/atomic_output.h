#pragma once
// Output files that appear whole or not at all. A writer (libtiff, libpng, plain writes) writes to
// temp_path(), a sibling of the target named ".tmp.<pid>.<n>.<name>"; commit() fsyncs it and
// renames it over the target. Until then readers see the old file or none, whatever crashes when;
// an output dropped without commit() removes its temp file.
//
// Thread-safety: one object per writer; different objects may target the same path (the last
// commit wins, each whole).

#include <cstddef>
#include <filesystem>
#include <functional>
#include <span>

#include "kiln/core/result.h"

namespace kiln {

// How a commit makes the file last: flushed to disk before the rename (after a crash the old file
// or the new one is there, whole), or renamed only (readers still see it whole; a crash may lose
// it): for files a session makes again, such as an editor's previews.
enum class Durability { kFlushed, kRenamedOnly };

class AtomicOutput {
 public:
  explicit AtomicOutput(std::filesystem::path target);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& target() const { return target_; }
  // Makes the temp file the target. Fails (and removes the temp file) naming the target.
  Status commit(Durability durability = Durability::kFlushed);

 private:
  std::filesystem::path target_, temp_;
  bool committed_ = false;
};

// `data` as the whole content of `path` (`mode` less the umask), through an AtomicOutput.
Status write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> data, unsigned mode = 0644,
                             Durability durability = Durability::kFlushed);

// The same for content made in pieces: `produce` hands each piece to the sink in order, and the
// file is committed only when it and every write succeeded.
using ByteSink = std::function<Status(std::span<const std::byte>)>;
Status write_file_atomically(const std::filesystem::path& path, const std::function<Status(const ByteSink&)>& produce,
                             unsigned mode = 0644, Durability durability = Durability::kFlushed);

}  // namespace kiln
