#pragma once
// Idle connections of a remote backend, kept for reuse: a call takes one (or makes one), uses it
// alone and gives it back when it is still sound. At most `keep` wait; more are closed.
//
// Thread-safety: take/give from any thread.

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace kiln::cache {

template <class Connection>
class ConnectionPool {
 public:
  explicit ConnectionPool(std::size_t keep) : keep_(keep) {}

  std::unique_ptr<Connection> take() {
    std::lock_guard lock(mu_);
    if (idle_.empty()) return nullptr;
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return c;
  }
  void give(std::unique_ptr<Connection> c) {
    std::lock_guard lock(mu_);
    if (idle_.size() < keep_) idle_.push_back(std::move(c));
  }

 private:
  std::size_t keep_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace kiln::cache
