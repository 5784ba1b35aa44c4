#include "kiln/core/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "kiln/core/thread_start.h"

namespace kiln::core {

int worker_count(int jobs) { return jobs > 0 ? jobs : std::max(1, int(std::thread::hardware_concurrency())); }

WorkerPool::WorkerPool(int threads) {
  const int n = worker_count(threads);
  threads_.reserve(std::size_t(n));
  for (int i = 0; i < n; ++i) {
    auto thread = start_thread([this] { run(); });
    if (!thread) {  // the workers started do the work; with none, the callers do
      refused_ = thread.error().message;
      shortfall_ =
          std::to_string(i) + " of " + std::to_string(n) + " worker threads started (" + thread.error().message + ")";
      break;
    }
    threads_.push_back(std::move(*thread));
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::submit(std::function<void()> task) {
  if (threads_.empty()) {
    task();
    return;
  }
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
  }
  work_cv_.notify_one();
}

void WorkerPool::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void WorkerPool::parallel_for(std::size_t n, const std::function<void(std::size_t)>& body) {
  if (n == 0) return;
  // Shared with the helper tasks: one may start after this call returned, find no index left and
  // leave without touching `body`.
  struct Shared {
    std::atomic<std::size_t> next{0};
    std::size_t done = 0;  // guarded by mu
    std::mutex mu;
    std::condition_variable all_done;
  };
  auto shared = std::make_shared<Shared>();
  const auto work = [shared, n, &body] {
    std::size_t finished = 0;
    for (std::size_t i; (i = shared->next.fetch_add(1)) < n;) {
      body(i);
      ++finished;
    }
    if (finished == 0) return;
    std::lock_guard lock(shared->mu);
    shared->done += finished;
    if (shared->done == n) shared->all_done.notify_all();
  };
  // The caller is one of the size() threads a parallel_for may occupy: `jobs` bounds the work.
  const std::size_t helpers = threads_.empty() ? 0 : std::min(n, threads_.size()) - 1;
  for (std::size_t h = 0; h < helpers; ++h) submit(work);
  work();
  std::unique_lock lock(shared->mu);
  shared->all_done.wait(lock, [&] { return shared->done == n; });
}

}  // namespace kiln::core
