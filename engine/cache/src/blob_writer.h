#pragma once
// The background writer of a BlobStore: a queue of finished file images and one thread that
// writes them atomically. Until a blob is on disk, pending() serves it to readers of this process.
//
// Thread-safety: enqueue/pending/flush from any thread; the writer thread owns the file writes.
// The callback runs on the writer thread (or the caller's, when not in background) after each write.

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "kiln/cache/blob_store.h"

namespace kiln::cache {

class BlobWriter {
 public:
  using Written = std::function<void(const std::filesystem::path&, std::uint64_t bytes, const Status&)>;

  // With `background`, a thread writes (started by the first enqueue: a store that only reads starts
  // none); enqueue() blocks while `max_queued_bytes` wait to be written.
  BlobWriter(bool background, std::uint64_t max_queued_bytes, Written on_written);
  ~BlobWriter();  // writes what is queued, then stops

  void enqueue(std::filesystem::path path, std::shared_ptr<const Bytes> image);
  std::shared_ptr<const Bytes> pending(const std::filesystem::path& path) const;
  // Drops what waits to be written to `path` (an entry being removed); a write under way completes.
  void forget(const std::filesystem::path& path);
  // Waits until every image enqueued before the call is written (or failed); later ones may remain.
  void flush();
  std::uint64_t peak_queued_bytes() const;

 private:
  struct Job {
    std::filesystem::path path;
    std::shared_ptr<const Bytes> image;
    std::uint64_t seq = 0;
    bool forgotten = false;
  };
  void run();
  void write(const Job& job);

  Written on_written_;
  const bool background_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::condition_variable space_cv_;
  std::uint64_t max_queued_bytes_;
  std::uint64_t queued_bytes_ = 0;
  std::uint64_t peak_queued_bytes_ = 0;
  std::deque<Job> queue_;
  std::map<std::filesystem::path, std::shared_ptr<const Bytes>> pending_;
  std::uint64_t enqueued_seq_ = 0;   // jobs are written in order: seq of the last enqueued...
  std::uint64_t completed_seq_ = 0;  // ...and of the last written
  bool stopping_ = false;
  std::thread thread_;  // started under mu_ by the first enqueue (refused: enqueue writes itself)
};

}  // namespace kiln::cache
