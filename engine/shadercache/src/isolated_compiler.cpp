#include "kiln/shadercache/isolated_compiler.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <optional>

#include "compile_wire.h"
#include "kiln/core/program_files.h"
#include "kiln/core/stack_threads.h"

namespace kiln::shadercache {
namespace fs = std::filesystem;
namespace {

// A worker exits with this after answering a compile that ran out of memory: glslang's state may
// not survive an allocation failure, so the next compile gets a fresh process.
constexpr int kExitAfterOutOfMemory = 3;

std::string error_prefix(const GlslInput& input) { return input.file.string() + ": error: "; }

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("crashed (SIG") + (name ? name : std::to_string(sig).c_str()) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

std::uint64_t resident_bytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

}  // namespace

struct IsolatedCompiler::Worker {
  pid_t pid = -1;
  int fd = -1;
  ~Worker() { stop(SIGKILL); }
  // Ends the process (if still there) and returns how it ended.
  int stop(int signal) {
    if (fd >= 0) ::close(fd), fd = -1;
    int status = 0;
    if (pid > 0) {
      if (signal) ::kill(pid, signal);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      pid = -1;
    }
    return status;
  }
};

IsolatedCompiler::IsolatedCompiler(CompileIsolation isolation) : isolation_(std::move(isolation)) {}

IsolatedCompiler::~IsolatedCompiler() = default;

IsolatedCompilerStats IsolatedCompiler::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

Result<GlslOutput> IsolatedCompiler::compile(const GlslInput& input) {
  if (isolation_.mode == CompileIsolation::Mode::kThread) return compile_glsl_on_large_stack(input);
  return compile_in_worker(input);
}

Error IsolatedCompiler::out_of_memory(const GlslInput& input) const {
  return make_error(error_prefix(input) + "the shader compiler ran out of memory (limit " +
                    std::to_string(isolation_.memory_limit_bytes >> 20) + " MiB, shaders.compile_memory_max)");
}

Result<std::unique_ptr<IsolatedCompiler::Worker>> IsolatedCompiler::start_worker() {
  if (isolation_.worker.empty())
    return make_error(
        "no shader compile worker (kiln-shader-worker) beside this program; "
        "install it with kiln, or set shaders.compile_workers off");
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return make_error(std::string("cannot start a shader compile worker: socketpair: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 0);  // dup2 clears close-on-exec on the copy
  const std::string path = isolation_.worker.string();
  const std::string limit = std::to_string(isolation_.memory_limit_bytes);
  std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>("--memory-limit"),
                             const_cast<char*>(limit.c_str()), nullptr};
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
  const int rc = ::posix_spawn(&worker->pid, path.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  ::close(sv[1]);
  if (rc != 0) {
    ::close(sv[0]);
    worker->pid = -1;
    return make_error("cannot start the shader compile worker " + path + ": " + std::strerror(rc));
  }
  worker->fd = sv[0];
  std::lock_guard lock(mu_);
  ++stats_.workers_started;
  return worker;
}

Result<GlslOutput> IsolatedCompiler::compile_in_worker(const GlslInput& input) {
  const std::string request = wire::encode_request(input);
  std::unique_ptr<Worker> worker;
  // An idle worker may have died since its last compile; one retry with a fresh one.
  for (int attempt = 0; attempt < 2; ++attempt) {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        worker = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!worker) {
      auto started = start_worker();
      if (!started) return started.error();
      worker = std::move(*started);
    }
    if (wire::send_message(worker->fd, request)) break;
    worker.reset();
  }
  if (!worker) return make_error(error_prefix(input) + "cannot reach a shader compile worker");

  // Wait for the reply, watching the worker's resident memory: the address-space limit the worker
  // sets does not hold under the sanitizers, whose allocators reserve their memory up front.
  std::string reply;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(isolation_.timeout).count();
  const auto deadline = std::chrono::steady_clock::now() + isolation_.timeout;
  enum { kReply, kTimeout, kOverMemory, kDied } outcome = kDied;
  for (;;) {
    pollfd pfd{worker->fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready != 0) {
      const auto read = wire::read_message(worker->fd, reply, deadline);
      outcome = read == wire::ReadResult::kOk ? kReply : read == wire::ReadResult::kTimeout ? kTimeout : kDied;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      outcome = kTimeout;
      break;
    }
    if (resident_bytes(worker->pid) > isolation_.memory_limit_bytes) {
      outcome = kOverMemory;
      break;
    }
  }
  if (outcome == kReply) {
    if (auto result = wire::decode_response(reply)) {
      std::lock_guard lock(mu_);
      idle_.push_back(std::move(worker));
      return std::move(*result);
    }
  }
  if (outcome == kTimeout || outcome == kOverMemory) {
    worker->stop(SIGKILL);
    std::lock_guard lock(mu_);
    ++stats_.workers_lost;
    if (outcome == kOverMemory) return out_of_memory(input);
    return make_error(error_prefix(input) + "the shader compiler ran longer than " + std::to_string(seconds) +
                      " s and was stopped (shaders.compile_timeout)");
  }
  // The worker died: say how. It exits by itself after an out-of-memory reply, so a closed
  // connection here is a crash or a kill by the memory limit.
  const int status = worker->stop(0);
  {
    std::lock_guard lock(mu_);
    ++stats_.workers_lost;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitAfterOutOfMemory) return out_of_memory(input);
  return make_error(error_prefix(input) + "the shader compiler " + describe_exit(status) +
                    " on this shader, most likely on an expression or macro expansion too deep for it");
}

namespace {

// Compiles on a kCompileStackBytes thread (kept for the next compile). With `peer` (a worker's
// socket), the calling thread watches it meanwhile and ends the process when the tool hangs up: a
// runaway compile must not outlive the tool that asked for it.
Result<GlslOutput> run_on_large_stack(const GlslInput& input, bool* out_of_memory, int peer) {
  std::optional<Result<GlslOutput>> output;
  bool ran_out = false;
  const auto job = [&] {
    try {
      output.emplace(compile_glsl(input));
    } catch (const std::bad_alloc&) {
      ran_out = true;
      output.emplace(make_error(error_prefix(input) + "the shader compiler ran out of memory"));
    }
  };
  const auto wait = [&](int done_fd) {
    for (bool done = false; !done;) {
      pollfd fds[2] = {{peer, POLLRDHUP, 0}, {done_fd, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) continue;
      if (fds[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) ::_exit(0);
      done = (fds[1].revents & POLLIN) != 0;
    }
  };
  if (auto ran = core::run_on_stack_thread(kCompileStackBytes, job, wait); !ran)
    return make_error(error_prefix(input) + "cannot start a compile thread: " + ran.error().message);
  if (out_of_memory) *out_of_memory = ran_out;
  return std::move(*output);
}

}  // namespace

Result<GlslOutput> compile_glsl_on_large_stack(const GlslInput& input) {
  return run_on_large_stack(input, nullptr, -1);
}

int serve_compile_requests(int fd) {
  for (;;) {
    std::string body;
    if (wire::read_message(fd, body, std::chrono::steady_clock::time_point::max()) != wire::ReadResult::kOk) return 0;
    auto request = wire::decode_request(body);
    if (!request) return 2;
    if (request->has_snapshot) request->input.snapshot = &request->snapshot;
    bool out_of_memory = false;
    const Result<GlslOutput> result = run_on_large_stack(request->input, &out_of_memory, fd);
    if (out_of_memory) return kExitAfterOutOfMemory;  // the reply would need memory too; the exit says it
    if (!wire::send_message(fd, wire::encode_response(result))) return 0;
  }
}

fs::path default_compile_worker() { return find_program_file("kiln-shader-worker", /*executable=*/true); }

CompileIsolation compile_isolation(const Config& config) {
  CompileIsolation isolation;
  if (!config.shader_compile_workers) return isolation;
  isolation.mode = CompileIsolation::Mode::kProcess;
  isolation.worker = default_compile_worker();
  isolation.memory_limit_bytes = config.shader_compile_memory_max_bytes;
  isolation.timeout = std::chrono::seconds(config.shader_compile_timeout_s);
  return isolation;
}

}  // namespace kiln::shadercache
