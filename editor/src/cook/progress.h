#pragma once
// Progress for people: on a terminal a bar that redraws in place (counts, rate, ETA); otherwise
// (CI, pipes) one plain line per stage and nothing per item.
//
// Thread-safety: tick() may be called from the worker threads; the rest from the cook's thread.

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace kiln::cook {

class Progress {
 public:
  explicit Progress(bool terminal) : terminal_(terminal) {}
  void line(const std::string& text);
  void tick(const char* what, std::size_t done, std::size_t total);
  void done(const char* what, std::size_t failed = 0);  // `failed` of the ticks did not build

 private:
  bool terminal_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point drawn_{};
  bool drawing_ = false;
  std::size_t last_done_ = 0, last_total_ = 0;
};

}  // namespace kiln::cook
