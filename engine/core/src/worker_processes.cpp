#include "kiln/core/worker_processes.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "kiln/core/message_frames.h"

namespace kiln::core {
namespace {

std::uint64_t resident_bytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

}  // namespace

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("crashed (SIG") + (name ? name : std::to_string(sig).c_str()) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

WorkerProcesses::Worker::~Worker() { stop(SIGKILL); }

int WorkerProcesses::Worker::stop(int signal) {
  if (fd_ >= 0) ::close(fd_), fd_ = -1;
  int status = 0;
  if (pid_ > 0) {
    if (signal) ::kill(pid_, signal);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
  }
  return status;
}

WorkerProcesses::WorkerProcesses(WorkerOptions options) : options_(std::move(options)) {}

WorkerProcesses::~WorkerProcesses() = default;

WorkerStats WorkerProcesses::stats() const {
  std::lock_guard lock(mu_);
  WorkerStats s = stats_;
  s.idle = idle_.size();
  return s;
}

void WorkerProcesses::stop_idle() {
  std::vector<std::unique_ptr<Worker>> stopping;
  {
    std::lock_guard lock(mu_);
    stopping.swap(idle_);
  }
  stopping.clear();  // each is killed and reaped, outside the lock
}

Result<std::unique_ptr<WorkerProcesses::Worker>> WorkerProcesses::start() {
  if (options_.program.empty()) return make_error(options_.missing);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return make_error("cannot start a " + options_.name + ": socketpair: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 0);  // dup2 clears close-on-exec on the copy
  const std::string path = options_.program.string();
  std::vector<char*> argv = {const_cast<char*>(path.c_str())};
  for (const std::string& a : options_.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The worker starts with no signal blocked and default handlers, whatever the tool did with its
  // own (the editor blocks SIGINT and SIGTERM to read them as events).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  auto worker = std::make_unique<Worker>();
  const int rc = ::posix_spawn(&worker->pid_, path.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(sv[1]);
  if (rc != 0) {
    ::close(sv[0]);
    worker->pid_ = -1;
    return make_error("cannot start the " + options_.name + " " + path + ": " + std::strerror(rc));
  }
  worker->fd_ = sv[0];
  std::lock_guard lock(mu_);
  ++stats_.started;
  return worker;
}

Result<std::unique_ptr<WorkerProcesses::Worker>> WorkerProcesses::send(std::string_view request,
                                                                       const std::string& where) {
  // An idle worker may have died since its last request; one retry with a fresh one.
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::unique_ptr<Worker> worker;
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        worker = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!worker) {
      auto started = start();
      if (!started) return started.error();
      worker = std::move(*started);
    }
    if (send_message(worker->fd_, request)) return worker;
  }
  return make_error(where + "cannot reach a " + options_.name);
}

WorkerReply WorkerProcesses::await(std::unique_ptr<Worker>& worker, std::chrono::steady_clock::time_point deadline) {
  WorkerReply reply;
  for (;;) {
    pollfd pfd{worker->fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready != 0) {
      const auto read = read_message(worker->fd_, reply.body, deadline);
      reply.outcome = read == ReadResult::kOk        ? WorkerReply::kMessage
                      : read == ReadResult::kTimeout ? WorkerReply::kTimeout
                                                     : WorkerReply::kDied;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      reply.outcome = WorkerReply::kTimeout;
      break;
    }
    if (options_.memory_limit_bytes && resident_bytes(worker->pid_) > options_.memory_limit_bytes) {
      reply.outcome = WorkerReply::kOverMemory;
      break;
    }
  }
  if (reply.outcome == WorkerReply::kMessage) return reply;
  // A closed connection is a crash, a kill by a limit, or the worker's own exit after running out
  // of memory (which says so by its status).
  reply.exit_status = worker->stop(reply.outcome == WorkerReply::kDied ? 0 : SIGKILL);
  if (reply.outcome == WorkerReply::kDied && options_.out_of_memory_exit >= 0 && WIFEXITED(reply.exit_status) &&
      WEXITSTATUS(reply.exit_status) == options_.out_of_memory_exit)
    reply.outcome = WorkerReply::kOverMemory;
  worker.reset();
  std::lock_guard lock(mu_);
  ++stats_.lost;
  return reply;
}

void WorkerProcesses::keep_idle(std::unique_ptr<Worker> worker) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(worker));
}

}  // namespace kiln::core
