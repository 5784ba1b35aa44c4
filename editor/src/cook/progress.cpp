#include "cook/progress.h"

#include <cstdio>

namespace kiln::cook {

void Progress::line(const std::string& text) {
  std::lock_guard lock(mu_);
  if (drawing_) std::fputc('\n', stderr), drawing_ = false;
  std::fprintf(stderr, "%s\n", text.c_str());
  started_ = std::chrono::steady_clock::now();
}

void Progress::tick(const char* what, std::size_t done, std::size_t total) {
  std::lock_guard lock(mu_);
  last_done_ = done, last_total_ = total;
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done != total && now - drawn_ < std::chrono::milliseconds(50)) return;  // redraw at most 20 times a second
  drawn_ = now;
  const double seconds = std::chrono::duration<double>(now - started_).count();
  const double rate = seconds > 0 ? double(done) / seconds : 0;
  const double eta = rate > 0 ? double(total - done) / rate : 0;
  constexpr int kWidth = 30;
  const int filled = total ? int(kWidth * done / total) : kWidth;
  std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu %s  %.0f/s  ETA %.0fs ", filled, "##############################",
               kWidth - filled, "", done, total, what, rate, eta);
  drawing_ = true;
}

void Progress::done(const char* what, std::size_t failed) {
  std::lock_guard lock(mu_);
  started_ = std::chrono::steady_clock::now();  // the next stage's rate counts from here
  if (drawing_) std::fputc('\n', stderr), drawing_ = false;
  if (failed > 0)
    std::fprintf(stderr, "cook: %zu/%zu %s built, %zu failed\n", last_done_ - failed, last_total_, what, failed);
  else if (!terminal_)
    std::fprintf(stderr, "cook: %zu/%zu %s built\n", last_done_, last_total_, what);
}

}  // namespace kiln::cook
