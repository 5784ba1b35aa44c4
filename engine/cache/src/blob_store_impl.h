#pragma once
// State of a BlobStore shared by its source files (blob_store.cpp: lookups and writes;
// blob_scan.cpp: prune and verify).

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <variant>

#include "blob_writer.h"
#include "kiln/cache/blob_store.h"

namespace kiln::cache {

struct BlobStore::Impl {
  BlobStoreOptions options;
  uid_t owner = 0;

  std::atomic<std::uint64_t> hits{0}, misses{0}, corrupt_deleted{0}, foreign_rejected{0};
  std::atomic<std::uint64_t> writes{0}, write_errors{0}, bytes_written{0};
  std::atomic<std::uint64_t> pruned_blobs{0}, pruned_namespaces{0};
  std::atomic<std::uint64_t> written_since_prune{0};
  std::atomic<bool> pruning{false};

  mutable std::mutex mu;  // guards last_error and open_namespaces
  std::string last_error;
  std::set<std::filesystem::path> open_namespaces;

  std::unique_ptr<BlobWriter> writer;  // last: its thread calls back into the members above

  void record_error(std::string message);
};

// The outcome of reading one blob file.
struct BlobAbsent {};
struct BlobForeign {};
struct BlobCorrupt {
  std::string problem;
};
using BlobRead = std::variant<Bytes, BlobAbsent, BlobForeign, BlobCorrupt>;

// Reads and checks the blob of `key` at `path`; a corrupt blob is deleted before this returns.
// On success, refreshes the blob's mtime if it is older than `touch_interval`.
BlobRead read_blob_file(const std::filesystem::path& path, const BlobKey& key, uid_t owner,
                        std::chrono::seconds touch_interval);

}  // namespace kiln::cache
