#include "blob_writer.h"

#include <algorithm>

#include "kiln/cache/private_files.h"
#include "kiln/core/thread_start.h"

namespace kiln::cache {

BlobWriter::BlobWriter(bool background, std::uint64_t max_queued_bytes, Written on_written)
    : on_written_(std::move(on_written)), background_(background), max_queued_bytes_(max_queued_bytes) {}

BlobWriter::~BlobWriter() {
  std::thread writer;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    writer = std::move(thread_);
  }
  work_cv_.notify_all();
  if (writer.joinable()) writer.join();
}

void BlobWriter::enqueue(std::filesystem::path path, std::shared_ptr<const Bytes> image) {
  if (!background_) {
    write(Job{std::move(path), std::move(image)});
    return;
  }
  {
    std::unique_lock lock(mu_);
    if (!thread_.joinable())
      if (auto started = core::start_thread([this] { run(); })) thread_ = std::move(*started);
    if (thread_.joinable()) {
      // Backpressure: a producer faster than the disk waits here instead of growing the queue.
      space_cv_.wait(lock, [&] { return queued_bytes_ == 0 || queued_bytes_ + image->size() <= max_queued_bytes_; });
      queued_bytes_ += image->size();
      peak_queued_bytes_ = std::max(peak_queued_bytes_, queued_bytes_);
      pending_[path] = image;
      queue_.push_back(Job{std::move(path), std::move(image), ++enqueued_seq_});
    }
  }
  if (image) {  // no writer thread (the system refused one): written here, as without background writes
    write(Job{std::move(path), std::move(image)});
    return;
  }
  work_cv_.notify_one();
}

std::shared_ptr<const Bytes> BlobWriter::pending(const std::filesystem::path& path) const {
  std::lock_guard lock(mu_);
  auto it = pending_.find(path);
  return it == pending_.end() ? nullptr : it->second;
}

void BlobWriter::forget(const std::filesystem::path& path) {
  std::lock_guard lock(mu_);
  pending_.erase(path);
  for (Job& job : queue_)
    if (job.path == path) job.forgotten = true;
}

void BlobWriter::flush() {
  std::unique_lock lock(mu_);
  const std::uint64_t target = enqueued_seq_;
  idle_cv_.wait(lock, [&] { return completed_seq_ >= target; });
}

std::uint64_t BlobWriter::peak_queued_bytes() const {
  std::lock_guard lock(mu_);
  return peak_queued_bytes_;
}

void BlobWriter::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything is written
    Job job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    if (!job.forgotten) write(job);
    lock.lock();
    completed_seq_ = job.seq;
    queued_bytes_ -= job.image->size();
    space_cv_.notify_all();
    // A later put of the same path may have replaced the image; only drop our own.
    if (auto it = pending_.find(job.path); it != pending_.end() && it->second == job.image) pending_.erase(it);
    idle_cv_.notify_all();
  }
}

void BlobWriter::write(const Job& job) {
  Status s = write_file_atomic(job.path, *job.image);
  on_written_(job.path, job.image->size(), s);
}

}  // namespace kiln::cache
