#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace kiln::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) {
    if (v.empty())
      merged.erase(k);
    else
      merged[k] = v;
  }
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : merged) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  int fds[2], in[2];
  if (::pipe2(fds, O_CLOEXEC) != 0 || ::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  const int rc = ::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  ::close(in[0]);
  in_fd_ = in[1];
  if (rc != 0) {
    ::close(fds[0]);
    ::close(in_fd_);
    throw std::runtime_error("cannot spawn " + argv[0] + ": " + std::strerror(rc));
  }
  out_fd_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    wait();
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (in_fd_ >= 0) ::close(in_fd_);
}

void ChildProcess::write_line(const std::string& line) { write(line + "\n"); }

void ChildProcess::write(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(in_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the child is gone: its exit tells the test
    done += std::size_t(n);
  }
}

std::optional<std::string> ChildProcess::read_line(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_fd_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    char chunk[4096];
    const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n <= 0) {
      if (buffer_.empty()) return std::nullopt;
      std::string rest = std::move(buffer_);
      buffer_.clear();
      return rest;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::string ChildProcess::read_all() {
  std::string out = std::move(buffer_);
  buffer_.clear();
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
  }
  return out;
}

void ChildProcess::close_input() {
  if (in_fd_ >= 0) ::close(in_fd_);
  in_fd_ = -1;
}

void ChildProcess::kill(int signal) {
  if (!reaped_) ::kill(pid_, signal);
}

bool ChildProcess::exited() {
  if (reaped_) return true;
  struct rusage usage {};
  const pid_t r = ::wait4(pid_, &status_, WNOHANG, &usage);
  if (r != pid_) return false;
  max_rss_kib_ = usage.ru_maxrss;
  reaped_ = true;
  return true;
}

int ChildProcess::wait() {
  if (!reaped_) {
    struct rusage usage {};
    while (::wait4(pid_, &status_, 0, &usage) < 0 && errno == EINTR) {}
    max_rss_kib_ = usage.ru_maxrss;
    reaped_ = true;
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return -1;
}

RunResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  ChildProcess child(argv, env);
  std::string output = child.read_all();
  const int code = child.wait();
  return {code, std::move(output), child.max_rss_kib()};
}

}  // namespace kiln::test
