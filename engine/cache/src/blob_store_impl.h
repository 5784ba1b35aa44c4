#pragma once
// State of a BlobStore shared by its source files (blob_store.cpp: lookups and writes;
// blob_scan.cpp: prune and verify).

#include <atomic>
#include <mutex>
#include <condition_variable>
#include <map>
#include <set>
#include <thread>
#include <string>
#include <variant>

#include "blob_writer.h"
#include "kind_use.h"
#include "remote_level.h"
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

  std::atomic<std::uint64_t> unreadable{0};
  std::atomic<std::uint64_t> removed{0};  // entries remove() took out
  KindUseCounters use;                    // per kind, added to <root>/<kind>/STATS on close

  mutable std::mutex mu;  // guards last_error, namespace_locks and unusable_kinds
  std::string last_error;
  std::set<std::string> unusable_kinds;  // kinds whose namespace could not be opened, said once each
  // Namespaces this store uses, each with an open LOCK file under a shared flock: a pruner in any
  // process takes the lock exclusively before it removes a namespace, so one in use is skipped.
  std::map<std::filesystem::path, int> namespace_locks;

  // Auto-prune runs on its own thread so that the writer keeps draining meanwhile; the first
  // request starts it (under prune_mu).
  BlobStore* outer = nullptr;  // the store this is the state of
  std::mutex prune_mu;
  std::condition_variable prune_cv;
  bool prune_requested = false, prune_running = false, prune_stop = false;
  std::thread pruner;

  std::unique_ptr<RemoteLevel> remote;  // none without options.remote
  std::unique_ptr<BlobWriter> writer;   // last: its thread calls back into the members above

  void record_error(std::string message);
  void request_prune();
  void run_pruner();
};

// The outcome of reading one blob file.
struct BlobAbsent {};
struct BlobForeign {};
struct BlobCorrupt {  // failed a check and was deleted
  std::string problem;
};
struct BlobUnreadable {  // not readable now (no file descriptors, I/O error, another format version)
  std::string problem;
};
using BlobRead = std::variant<Bytes, BlobAbsent, BlobForeign, BlobCorrupt, BlobUnreadable>;

// Reads and checks the blob of `key` at `path`; a corrupt blob is deleted before this returns.
// Never throws, never blocks on a non-regular file.
// On success, refreshes the blob's mtime if it is older than `touch_interval`.
BlobRead read_blob_file(const std::filesystem::path& path, const BlobKey& key, uid_t owner,
                        std::chrono::seconds touch_interval);

}  // namespace kiln::cache
