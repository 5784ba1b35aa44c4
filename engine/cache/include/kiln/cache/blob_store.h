#pragma once
// BlobStore: the persistent, content-addressed store under the cache root (in the
// manner of ccache's storage layer).
//
//   <root>/<kind>/<namespace-id>/<k0k1>/<key-hex>.blob
//
// A namespace hashes everything that must never be served across (compiler or build identity,
// configuration fingerprint, backend); its directory holds NAMESPACE.txt, the identity in words.
// Each blob is a 64-byte header (magic, format version, key, payload length, payload checksum,
// header checksum) and the payload. Blobs are written by a background thread through a temp file,
// fsync and rename, so a reader never sees a torn blob whatever crashes when. A blob that fails any
// check is deleted, counted and reported as a miss; a blob not owned by the trusted user is never
// read. The root is created private to the user (0700).
//
// Several processes may use one store at once: writes are atomic renames of identical content,
// pruning only unlinks, and a reader holding an open file is unaffected by an unlink. A store holds
// a shared flock on <namespace>/LOCK of every namespace it opened; pruning never removes a
// namespace whose lock it cannot take exclusively.
//
// Thread-safety: every member function may be called from any thread. One writer thread per store
// owns the temp files; flush() waits until what was put before it is on disk.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/cache/hash.h"
#include "kiln/core/result.h"

namespace kiln::cache {

using Bytes = std::vector<std::byte>;

struct BlobStoreOptions {
  std::filesystem::path root;
  std::uint64_t max_bytes = std::uint64_t{4} << 30;  // size cap over all namespaces
  int keep_namespaces = 3;                           // per kind, newest first
  std::optional<uid_t> trusted_owner;                // whose blobs are read; default: the effective user
  // A hit refreshes the blob's mtime (the LRU clock) only when it is older than this, to keep
  // hits free of a metadata write.
  std::chrono::seconds touch_interval{60};
  bool background_writes = true;  // false: put() writes before it returns
  // put() blocks while this many bytes wait for the writer thread, so memory stays bounded.
  std::uint64_t max_queued_bytes = std::uint64_t{64} << 20;
  // Prune automatically after this many bytes were written by this store (0: max_bytes / 16).
  std::uint64_t auto_prune_after_bytes = 0;
};

// A content key: a 128-bit hash of everything the payload was made from.
struct BlobKey {
  Hash128 hash;
  std::string hex() const { return hash.hex(); }
  friend bool operator==(const BlobKey&, const BlobKey&) = default;
};

// A namespace, opened by BlobStore::open_namespace.
struct BlobNamespace {
  std::string kind;
  std::string id;  // 16 hex characters
  std::filesystem::path dir;
};

struct BlobStoreStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t corrupt_deleted = 0;   // blobs that failed a check and were removed
  std::uint64_t unreadable = 0;        // misses for a passing reason (I/O error, no descriptors, other format)
  std::uint64_t foreign_rejected = 0;  // blobs not owned by the trusted user, never read
  std::uint64_t writes = 0;
  std::uint64_t write_errors = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t peak_queued_bytes = 0;  // most bytes ever waiting for the writer thread
  std::uint64_t pruned_blobs = 0;
  std::uint64_t pruned_namespaces = 0;
  std::string last_error;  // the most recent write or prune failure, for logs
};

// What prune() or verify() found on disk.
struct BlobScan {
  std::uint64_t blobs = 0;
  std::uint64_t bytes = 0;
  std::uint64_t corrupt = 0;  // verify() only: failed a check (and were deleted)
  std::uint64_t removed = 0;  // prune() only: removed for the cap or as stale temp files
};

// Checks the bytes of a whole blob file as the blob of `key`: the problem (a short or foreign
// header, another key, a length or checksum mismatch), or nothing when it is sound. What the
// store runs on every read before it hands a payload out.
std::optional<std::string> check_blob_file(std::span<const std::byte> file, const BlobKey& key);
// The key a blob file name ("<32 hex>.blob") stands for.
std::optional<BlobKey> blob_key_from_file_name(std::string_view name);

class BlobStore {
 public:
  // Creates or opens the store at options.root. Fails if the root cannot be created or belongs to
  // another user.
  static Result<std::unique_ptr<BlobStore>> open(BlobStoreOptions options);
  ~BlobStore();  // flushes
  BlobStore(const BlobStore&) = delete;
  BlobStore& operator=(const BlobStore&) = delete;

  // `kind` names a cache ("shaders", "jit"): [a-z0-9_-]+. `identity` lists what must never be served
  // across, as name/value pairs; their order does not matter. Marks the namespace as the newest.
  Result<BlobNamespace> open_namespace(std::string_view kind,
                                       std::vector<std::pair<std::string, std::string>> identity);

  // The payload stored under `key`, or nothing on a miss (absent, corrupt, foreign).
  std::optional<Bytes> get(const BlobNamespace& ns, const BlobKey& key);

  // Stores `payload` under `key` in the background (or at once if background_writes is off).
  // A blob put and not yet written is already visible to get() of this store.
  void put(const BlobNamespace& ns, const BlobKey& key, Bytes payload);

  // Waits until every put() issued before it has been written and renamed into place (or has
  // failed), and any prune that writing triggered has finished. Then other processes see the blobs.
  // The file data is fsynced before the rename; the directory is not, so after a power loss a
  // flushed blob may be missing (a miss), never torn.
  void flush();

  // Enforces the size cap (least recently used first, down to 90% of it), keeps the newest
  // keep_namespaces namespaces of each kind, and removes temp files left by crashed writers.
  Result<BlobScan> prune();

  // Reads and checks every blob of the store, deleting the corrupt ones.
  Result<BlobScan> verify();

  BlobStoreStats stats() const;
  const std::filesystem::path& root() const;

  // The path a blob of `key` has in `ns` (for tests and tools).
  std::filesystem::path blob_path(const BlobNamespace& ns, const BlobKey& key) const;

 private:
  struct Impl;
  explicit BlobStore(std::unique_ptr<Impl> impl);
  Status lock_namespace(const std::filesystem::path& dir);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::cache
