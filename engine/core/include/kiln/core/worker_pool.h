#pragma once
// The one pool of worker threads a tool runs its parallel work on: the cook's stages (variants,
// script pages, textures), the editor's rebuilds and the script runtime's background compiles all
// share it, so a tool never runs more compile threads than `jobs` says.
//
// Tasks run in the order they were submitted. parallel_for() also works on the calling thread, so
// it makes progress when every worker is busy with someone else's tasks, and may be called from
// inside a task.
//
// When the system refuses threads (core::start_thread), the pool keeps the workers it could start;
// with none, submit() runs the task at once on the calling thread and parallel_for() runs on the
// calling thread alone: slower, never lost.
//
// Thread-safety: submit() and parallel_for() may be called from any thread. The destructor runs
// what is still queued, then joins; whoever submitted tasks that touch other objects must wait for
// them before those objects go (the script runtime counts its own).

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kiln::core {

class WorkerPool {
 public:
  // `threads` <= 0: one per hardware thread (fewer if the system refuses some).
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The threads work runs on: the workers, or the calling thread alone when none could start.
  int size() const { return std::max(1, int(threads_.size())); }
  void submit(std::function<void()> task);
  // body(i) for every i in [0, n), on at most size() threads: the calling thread and size() - 1
  // workers. Returns when every call has returned.
  void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body);
  // Empty when every worker asked for started; else how many did and why the rest did not, for
  // the tool to say (a run slower than its `jobs` setting should not be a mystery).
  const std::string& shortfall() const { return shortfall_; }
  // The workers that started, and why the next one did not (empty when every one started).
  int started() const { return int(threads_.size()); }
  const std::string& refused() const { return refused_; }

 private:
  void run();

  std::mutex mu_;  // guards queue_ and stopping_
  std::condition_variable work_cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::string shortfall_, refused_;
};

// The worker count a `jobs` setting means: itself when positive, else one per hardware thread.
int worker_count(int jobs);

}  // namespace kiln::core
