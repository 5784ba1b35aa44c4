#pragma once
// A real child process for tests: spawned with extra environment, its stdout and stderr read
// through a pipe, killable with any signal.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::test {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the environment of this process plus `env` (empty value: unset).
  ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});
  ~ChildProcess();  // kills and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The next line of output, or nothing at end of output or after `timeout`.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Everything the child writes until it closes its output.
  std::string read_all();
  // Writes `line` and a newline to the child's standard input.
  void write_line(const std::string& line);
  // Writes `text` as it is.
  void write(const std::string& text);
  // Closes the child's standard input: it reads end of input.
  void close_input();
  void kill(int signal);
  pid_t pid() const { return pid_; }
  // Exit code, or 128 + signal number if a signal ended it.
  int wait();
  // Whether the child has ended (reaping it if so), without waiting.
  bool exited();
  // The child's peak resident memory, once wait() has reaped it.
  long max_rss_kib() const { return max_rss_kib_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int in_fd_ = -1;
  std::string buffer_;
  bool reaped_ = false;
  int status_ = 0;
  long max_rss_kib_ = 0;
};

// Runs a command to completion: exit code and combined output.
struct RunResult {
  int exit_code;
  std::string output;
  long max_rss_kib = 0;  // the child's peak resident memory
};
RunResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});

}  // namespace kiln::test
