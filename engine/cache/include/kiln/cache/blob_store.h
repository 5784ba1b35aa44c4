#pragma once
// BlobStore: the persistent, content-addressed store under the cache root (in the
// manner of ccache's storage layer).
//
//   <root>/<kind>/<build-id>-<settings-id>/<k0k1>/<key-hex>.blob
//
// Every persistent cache is a kind of this one store (cache_kinds.h): shader variants, script
// pages, converted textures. A namespace hashes everything that must never be served across: the
// build of the producer (compiler versions, formats) and the settings one build varies (backend,
// target, host CPU). Its directory holds NAMESPACE.txt, the identity in words. Pruning keeps the
// newest keep_namespaces builds of each kind with all their settings, and holds one size cap over
// every kind together.
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
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/cache/hash.h"
#include "kiln/cache/remote_storage.h"
#include "kiln/trust/hmac.h"
#include "kiln/core/result.h"

namespace kiln::cache {

using Bytes = std::vector<std::byte>;

// Where a blob file's payload starts (after its header): a kind that streams from its entries (a .tx
// read tile by tile) reads the file from here.
inline constexpr std::size_t kBlobPayloadOffset = 64;

struct BlobStoreOptions {
  std::filesystem::path root;
  std::uint64_t max_bytes = std::uint64_t{4} << 30;  // size cap over all namespaces
  int keep_namespaces = 3;                           // builds per kind, newest first
  std::optional<uid_t> trusted_owner;                // whose blobs are read; default: the effective user
  // A hit refreshes the blob's mtime (the LRU clock) only when it is older than this, to keep
  // hits free of a metadata write.
  std::chrono::seconds touch_interval{60};
  bool background_writes = true;  // false: put() writes before it returns
  // put() blocks while this many bytes wait for the writer thread, so memory stays bounded.
  std::uint64_t max_queued_bytes = std::uint64_t{64} << 20;
  // Prune automatically after this many bytes were written by this store (0: max_bytes / 16).
  std::uint64_t auto_prune_after_bytes = 0;
  // A remote level shared with other machines (remote_storage.h); none when null. Entries of
  // shared namespaces are looked up there after a local miss (a hit is then written locally) and
  // sent there after put(), unless `remote_read_only`. The remote's first failure is reported once
  // through `warn` (stderr when unset) and the store goes on without it.
  std::shared_ptr<RemoteStorage> remote;
  bool remote_read_only = false;
  // Local hits of shared namespaces are sent to the remote too when it lacks them (a sharded
  // cook: what this machine already had must still reach the machine that assembles).
  bool remote_fill_from_local = false;
  // The farm's keys (cache.remote_key): with any, every entry sent carries an HMAC-SHA256 tag
  // under the first, and an entry is used only when one of them verifies its tag; the others are
  // rejected (remote_untrusted) and never copied into this cache. Empty: entries are not keyed.
  std::vector<trust::HmacKey> remote_keys;
  std::function<void(const std::string&)> warn;
};

// A content key: a 128-bit hash of everything the payload was made from.
struct BlobKey {
  Hash128 hash;
  std::string hex() const { return hash.hex(); }
  friend bool operator==(const BlobKey&, const BlobKey&) = default;
};

using Identity = std::vector<std::pair<std::string, std::string>>;  // name/value pairs, any order

// A namespace, opened by BlobStore::open_namespace.
struct BlobNamespace {
  std::string kind;
  std::string id;  // "<build>-<settings>", 16 hex characters each
  std::filesystem::path dir;
  bool shared = false;  // its entries go to the remote level (see open_namespace)
};

// The id open_namespace gives `build` and `settings` ("<build>-<settings>"), without a store: what
// names a build's outputs whether or not a cache could be used.
std::string namespace_id(Identity build, Identity settings = {});

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

// How a kind was used by every tool since the kind was last cleared (see kind_use.h).
struct KindUse {
  std::uint64_t hits = 0, misses = 0;
  std::uint64_t corrupt = 0;  // entries that failed a check on a read and were deleted
  std::uint64_t writes = 0;
  std::uint64_t evictions = 0;  // entries and namespaces pruned for the cap or the build limit
  // The remote level (remote_storage.h), looked up after local misses.
  std::uint64_t remote_hits = 0, remote_misses = 0;
  std::uint64_t remote_rejected = 0;   // entries that failed their check: never used
  std::uint64_t remote_untrusted = 0;  // entries without a valid tag of the farm's keys: never used
  std::uint64_t remote_errors = 0;     // operations the server did not answer or refused
  std::uint64_t remote_writes = 0;
  std::uint64_t remote_bytes_read = 0, remote_bytes_written = 0;

  KindUse& operator+=(const KindUse& o) {
    hits += o.hits, misses += o.misses, corrupt += o.corrupt, writes += o.writes, evictions += o.evictions;
    remote_hits += o.remote_hits, remote_misses += o.remote_misses, remote_rejected += o.remote_rejected;
    remote_untrusted += o.remote_untrusted;
    remote_errors += o.remote_errors, remote_writes += o.remote_writes;
    remote_bytes_read += o.remote_bytes_read, remote_bytes_written += o.remote_bytes_written;
    return *this;
  }
};

// What prune(), verify(), scan() or clear() found on disk, in all and per kind.
struct BlobScanCounts {
  std::uint64_t blobs = 0;       // entries left
  std::uint64_t bytes = 0;       // their size
  std::uint64_t namespaces = 0;  // namespaces left
  std::uint64_t corrupt = 0;     // verify() only: failed a check (and were deleted)
  std::uint64_t removed = 0;     // entries and namespaces removed for the cap, the build count or clear(),
                                 // and stale temp files
  KindUse use;                   // scan() only: counted by every tool (in all: the sum)
};
struct BlobScan : BlobScanCounts {
  std::map<std::string, BlobScanCounts> kinds;  // every kind of cache_kinds()
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

  // `kind` is one of cache_kinds(). `build` names the producer's build (what a new version of it
  // changes), `settings` what one build varies; nothing is served across either. Marks the namespace
  // as the newest. Fails when a directory on the way is not the user's own (see use_private_dir).
  // Entries of a kind that machines share (CacheKind::shared) use the remote level unless `local`
  // (keys that only mean something on this machine, such as a file's inode). A kind whose
  // namespace cannot be opened (a read-only root, a kind directory of another user) is said once
  // through `warn`, when set ("shaders cache off: <dir>: why"); its users go on without it.
  Result<BlobNamespace> open_namespace(std::string_view kind, Identity build, Identity settings = {},
                                       bool local = false);

  // The payload stored under `key`, or nothing on a miss (absent, corrupt, foreign). `corrupt`, when
  // given, says whether the miss was an entry that failed its checks (and is now deleted).
  std::optional<Bytes> get(const BlobNamespace& ns, const BlobKey& key, bool* corrupt = nullptr);

  // Stores `payload` under `key` in the background (or at once if background_writes is off).
  // A blob put and not yet written is already visible to get() of this store.
  void put(const BlobNamespace& ns, const BlobKey& key, Bytes payload);

  // Removes the entry of `key`: one that a deeper check than the store's found wrong (a forged
  // signature, a verify run that compiled something else) is gone before anything can serve it.
  void remove(const BlobNamespace& ns, const BlobKey& key);

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

  // What is on disk, without reading the blobs or changing anything, and how each kind was used.
  Result<BlobScan> scan();

  // Removes every namespace of `kind` (of every kind when empty) that no store holds open; what
  // stays is counted in the result.
  Result<BlobScan> clear(std::string_view kind = {});

  BlobStoreStats stats() const;
  const std::filesystem::path& root() const;
  // The remote level: its address ("redis://host:6379/0"), whether it is read-only, and why it
  // is off or no longer written (empty while it works). Empty address without one.
  std::string remote_address() const;
  bool remote_read_only() const;
  std::string remote_trouble() const;
  // How this store used the remote level so far, over every kind (the remote_* fields).
  KindUse remote_use() const;

  // The path a blob of `key` has in `ns` (for tests, tools and kinds that stream from the file).
  std::filesystem::path blob_path(const BlobNamespace& ns, const BlobKey& key) const;

  // A fresh path for a temp file of `ns` ending in `suffix`, for a producer that can only write files
  // (a converter); prune removes it if a crash leaves it behind. The caller removes it when done.
  Result<std::filesystem::path> temp_path(const BlobNamespace& ns, std::string_view suffix);

 private:
  struct Impl;
  explicit BlobStore(std::unique_ptr<Impl> impl);
  Status lock_namespace(const std::filesystem::path& dir);
  Result<BlobNamespace> make_namespace(std::string_view kind, Identity build, Identity settings, bool local);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::cache
