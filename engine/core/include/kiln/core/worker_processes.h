#pragma once
// The helper processes of one kind a tool starts to run work that may crash (kiln-shader-worker for
// glslang and SPIRV-Cross, kiln-page-worker for LLVM), and, given a deadline and a memory limit, run
// away or exhaust memory (the shader workers), as Unreal's ShaderCompileWorker does. Each worker answers one request at a time over the socket it has as
// standard input (message_frames.h). Workers are started on demand, one per concurrent request,
// kept idle for the next while they live, and replaced when one is lost. A wait for a reply ends at
// a deadline, and, with a memory limit, when the worker's resident size passes it (an address-space
// limit set in the worker does not hold under the sanitizers, whose allocators reserve up front).
//
// Thread-safety: every member function may be called from any thread; a Worker belongs to the one
// request that took it. The idle list is guarded by one mutex, never held while waiting.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/core/result.h"

namespace kiln::core {

struct WorkerOptions {
  std::filesystem::path program;  // empty: none installed (start fails with `missing`)
  std::vector<std::string> args;
  std::string name;                      // for messages: "shader compile worker"
  std::string missing;                   // the whole message when `program` is empty
  std::uint64_t memory_limit_bytes = 0;  // resident size a worker may reach while answering; 0: any
  // The exit status a worker leaves with after a reply it gave out of memory, if it has one.
  int out_of_memory_exit = -1;
};

struct WorkerStats {
  std::uint64_t started = 0;
  std::uint64_t lost = 0;  // crashed, out of memory or past a deadline
  std::size_t idle = 0;    // kept for the next request now
};

// How a wait for a worker's message ended. A worker that is lost has been stopped.
struct WorkerReply {
  enum Outcome { kMessage, kTimeout, kOverMemory, kDied } outcome = kDied;
  std::string body;
  int exit_status = 0;  // kDied: how the process ended (a wait status)
};

class WorkerProcesses {
 public:
  class Worker {
   public:
    ~Worker();  // kills the process if it is still there
    // Ends the process (if still there, with `signal` unless 0) and returns its wait status.
    int stop(int signal);
    pid_t pid() const { return pid_; }
    int fd() const { return fd_; }

   private:
    friend class WorkerProcesses;
    pid_t pid_ = -1;
    int fd_ = -1;
  };

  explicit WorkerProcesses(WorkerOptions options);
  ~WorkerProcesses();  // stops the idle workers
  WorkerProcesses(const WorkerProcesses&) = delete;
  WorkerProcesses& operator=(const WorkerProcesses&) = delete;

  // Sends `request` to an idle worker (or a new one, once more if an idle one has died since); the
  // worker that took it is returned. A failure says `where` and why.
  Result<std::unique_ptr<Worker>> send(std::string_view request, const std::string& where);
  // The worker's next message, waited for until `deadline`. A lost worker is stopped and reset.
  WorkerReply await(std::unique_ptr<Worker>& worker, std::chrono::steady_clock::time_point deadline);
  // A worker that answered, kept for the next request.
  void keep_idle(std::unique_ptr<Worker> worker);
  // Ends the idle workers (a request after this starts a new one): their memory back once a tool is
  // done with them.
  void stop_idle();
  WorkerStats stats() const;
  const WorkerOptions& options() const { return options_; }

 private:
  Result<std::unique_ptr<Worker>> start();

  WorkerOptions options_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Worker>> idle_;
  WorkerStats stats_;
};

// "crashed (SIGSEGV)", "exited with status 3": how a process with wait status `status` ended.
std::string describe_exit(int status);

}  // namespace kiln::core
