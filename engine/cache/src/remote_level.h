#pragma once
// The remote level of a BlobStore: after a local miss, entries of shared namespaces are looked up
// on the remote server; what is put locally is also sent there (in the background, unless
// read-only). An entry travels as the whole blob file (header with key, length and checksum, then
// the payload) and is checked like a local file before anything uses it: a damaged or foreign one
// is a miss, counted, and is overwritten by the next put of its key.
//
// With the farm's keys, an entry travels as the blob file image followed by its HMAC-SHA256 tag
// (trust/hmac.h) over the remote key and the image, made with the first key. An entry is used only
// when a key verifies its tag: one without a tag, with another farm's, or changed on the server
// (checksums recomputed or not) is rejected and counted as untrusted, before its checksums are
// even looked at. Without keys, a tagged entry does not parse as a blob and is rejected.
//
// A server that does not answer is never a failure of the tool: the first unreachable answer
// turns the level off for the rest of the process and is reported once through `warn`; a refused
// write (a full or read-only server) stops the writes and is reported once, lookups go on.
//
// Thread-safety: get/put/flush/stats from any thread; the uploads run on a small worker pool of
// the level's own (core::WorkerPool), each sender with a connection of its own (a server's
// latency, not its bandwidth, bounds one upload at a time).

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "kind_use.h"
#include "kiln/cache/blob_store.h"
#include "kiln/cache/remote_storage.h"
#include "kiln/core/worker_pool.h"
#include "kiln/trust/hmac.h"

namespace kiln::cache {

class RemoteLevel {
 public:
  RemoteLevel(std::shared_ptr<RemoteStorage> storage, bool read_only, KindUseCounters& use,
              std::function<void(const std::string&)> warn, std::vector<trust::HmacKey> keys = {});
  ~RemoteLevel();  // sends what is queued (each send bounded by the timeout), then stops
  RemoteLevel(const RemoteLevel&) = delete;
  RemoteLevel& operator=(const RemoteLevel&) = delete;

  // The checked blob file image of `key`; nothing on a miss, a bad entry, or with the level off.
  std::optional<Bytes> get(const BlobNamespace& ns, const BlobKey& key);
  // Queues the blob file image of `key` for the server (nothing when read-only or off).
  void put(const BlobNamespace& ns, const BlobKey& key, std::shared_ptr<const Bytes> image);
  // The same for an entry this machine already had: sent only when the server lacks it (a shard
  // whose local cache was warm before the remote was set, or during an outage).
  void fill(const BlobNamespace& ns, const BlobKey& key, std::shared_ptr<const Bytes> image);
  // Waits until everything put before it was sent (or dropped); later puts may remain.
  void flush();

  const std::string& address() const { return storage_->address(); }
  bool read_only() const { return read_only_; }
  // Why the level is off or writes stopped; empty while it works.
  std::string trouble() const;

  // The name of `key` on the server: kiln/<kind>/<namespace>/<key hex>.
  static std::string remote_key(const BlobNamespace& ns, const BlobKey& key);

 private:
  struct Upload {
    std::string key;
    int kind = -1;
    std::shared_ptr<const Bytes> image;
    bool only_if_absent = false;
    std::uint64_t seq = 0;
  };
  void enqueue(Upload upload);
  // The image as sent: with the tag of the first key when the level has keys.
  std::shared_ptr<const Bytes> keyed(const std::string& remote_key, std::shared_ptr<const Bytes> image) const;
  // The tag at the end of `entry` verified by one of the keys: the image without it, else nothing.
  std::optional<Bytes> unkeyed(const std::string& remote_key, Bytes entry) const;
  void send(const Upload& upload);
  // For a fill: whether the server has a usable entry under the upload's key (kOk), or not (kAbsent).
  RemoteReply present(const Upload& upload);
  // Counts a failed answer; turns the level (or its writes) off and warns, once.
  void failed(const RemoteReply& reply, bool writing);

  std::shared_ptr<RemoteStorage> storage_;
  const bool read_only_;
  const std::vector<trust::HmacKey> keys_;
  KindUseCounters& use_;
  std::function<void(const std::string&)> warn_;
  std::atomic<bool> off_{false}, writes_off_{false}, warned_{false};

  mutable std::mutex mu_;  // guards everything below but the senders
  std::string trouble_;
  std::condition_variable idle_cv_, space_cv_;
  std::uint64_t queued_bytes_ = 0;  // of the uploads not yet sent
  std::uint64_t last_seq_ = 0;      // of the newest upload queued
  std::set<std::uint64_t> unsent_;  // sequence numbers queued or being sent
  // Last: started after everything above exists, and on destruction (first) sends what is queued.
  core::WorkerPool senders_;
};

}  // namespace kiln::cache
