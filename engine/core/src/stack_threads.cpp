#include "kiln/core/stack_threads.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace kiln::core {
namespace {

class StackThread {
 public:
  // The job, and the eventfd its end signals. Called by the one caller that took this thread.
  void start(const std::function<void()>* job, int done_fd) {
    {
      std::lock_guard lock(mu_);
      job_ = job;
      done_fd_ = done_fd;
      done_ = false;
    }
    wake_.notify_one();
  }

  // After done_fd said so: the job and everything it wrote are finished (the eventfd alone orders
  // nothing between the threads; the lock does).
  void join_job() {
    std::unique_lock lock(mu_);
    ended_.wait(lock, [&] { return done_; });
  }

  // Its stack's pages in memory now.
  std::size_t resident_bytes() {
    std::lock_guard lock(mu_);
    if (!stack_base_) return 0;
    const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in_core((stack_size_ + page - 1) / page);
    if (::mincore(stack_base_, stack_size_, in_core.data()) != 0) return 0;
    std::size_t pages = 0;
    for (unsigned char c : in_core) pages += c & 1;
    return pages * page;
  }

  static void* main(void* arg) {
    static_cast<StackThread*>(arg)->serve();
    return nullptr;
  }

 private:
  void serve() {
    pthread_attr_t attr;
    if (::pthread_getattr_np(::pthread_self(), &attr) == 0) {
      std::lock_guard lock(mu_);
      ::pthread_attr_getstack(&attr, &stack_base_, &stack_size_);
      ::pthread_attr_destroy(&attr);
    }
    for (;;) {
      const std::function<void()>* job = nullptr;
      int done_fd = -1;
      {
        std::unique_lock lock(mu_);
        wake_.wait(lock, [&] { return job_ != nullptr; });
        job = std::exchange(job_, nullptr);
        done_fd = done_fd_;
      }
      (*job)();
      give_back_deep_pages();
      const std::uint64_t one = 1;
      (void)!::write(done_fd, &one, sizeof one);
      {
        std::lock_guard lock(mu_);  // after the write: the caller closes done_fd once it sees this
        done_ = true;
      }
      ended_.notify_all();
    }
  }

  // The job's frames are gone: what it touched more than kKeptStackBytes below this frame goes
  // back to the kernel (an untouched range costs a page-table walk, no flush).
  void give_back_deep_pages() {
    void* base = nullptr;
    {
      std::lock_guard lock(mu_);
      base = stack_base_;
    }
    if (!base) return;
    const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    const auto low = reinterpret_cast<std::uintptr_t>(base);
    const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    if (here < low + kKeptStackBytes + page) return;
    const std::uintptr_t end = (here - kKeptStackBytes) & ~(page - 1);
    (void)::madvise(base, end - low, MADV_DONTNEED);
  }

  std::mutex mu_;
  std::condition_variable wake_, ended_;
  const std::function<void()>* job_ = nullptr;
  int done_fd_ = -1;
  bool done_ = true;
  void* stack_base_ = nullptr;  // lowest address; set by the thread when it starts
  std::size_t stack_size_ = 0;
};

// The idle threads of each stack size. Never destroyed: kept threads wait in it until the
// process ends.
struct IdleThreads {
  std::mutex mu;
  std::vector<std::pair<std::size_t, StackThread*>> idle;
};
IdleThreads& idle_threads() {
  static auto* threads = new IdleThreads;
  return *threads;
}

}  // namespace

std::size_t largest_idle_stack_resident_bytes() {
  IdleThreads& pool = idle_threads();
  std::lock_guard lock(pool.mu);
  std::size_t largest = 0;
  for (const auto& [size, thread] : pool.idle) largest = std::max(largest, thread->resident_bytes());
  return largest;
}

Status run_on_stack_thread(std::size_t stack_bytes, const std::function<void()>& job,
                           const std::function<void(int done_fd)>& wait) {
  IdleThreads& pool = idle_threads();
  StackThread* thread = nullptr;
  {
    std::lock_guard lock(pool.mu);
    for (auto it = pool.idle.begin(); it != pool.idle.end(); ++it)
      if (it->first == stack_bytes) {
        thread = it->second;
        pool.idle.erase(it);
        break;
      }
  }
  if (!thread) {
    auto made = std::make_unique<StackThread>();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t id;
    const int rc = ::pthread_create(&id, &attr, StackThread::main, made.get());
    pthread_attr_destroy(&attr);
    if (rc != 0) return make_error(std::strerror(rc));
    thread = made.release();  // lives as long as its thread: to the process's end
  }
  const int done_fd = ::eventfd(0, EFD_CLOEXEC);
  if (done_fd < 0) {
    std::lock_guard lock(pool.mu);
    pool.idle.emplace_back(stack_bytes, thread);
    return make_error(std::strerror(errno));
  }
  thread->start(&job, done_fd);
  wait(done_fd);
  thread->join_job();
  ::close(done_fd);
  std::lock_guard lock(pool.mu);
  pool.idle.emplace_back(stack_bytes, thread);
  return {};
}

}  // namespace kiln::core
