#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "kiln/cache/detail/epochs.h"

using namespace kiln::cache::detail;

namespace {

// Counts its destructions, so a test sees when reclamation freed it.
struct Tracked {
  std::atomic<int>* destroyed;
  ~Tracked() { ++*destroyed; }
};

// A thread inside an EpochReader section until told to leave it.
class ParkedReader {
 public:
  ParkedReader()
      : thread_([this] {
          EpochReader outer;
          { EpochReader inner; }  // a nested section's end leaves the outer one reading
          std::unique_lock lock(mu_);
          inside_ = true;
          cv_.notify_all();
          cv_.wait(lock, [&] { return leave_; });
        }) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return inside_; });
  }
  void leave() {
    {
      std::lock_guard lock(mu_);
      leave_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool inside_ = false, leave_ = false;
  std::thread thread_;
};

}  // namespace

TEST_SUITE("cache/concurrent") {
  TEST_CASE("a retired object outlives every reader that was reading when it was retired") {
    std::atomic<int> destroyed{0};
    RetiredList retired;
    ParkedReader reader;
    retired.retire(new Tracked{&destroyed});
    for (int i = 0; i < 5; ++i) retired.collect();
    CHECK(destroyed == 0);  // the reader might still hold it
    CHECK_FALSE(retired.empty());
    reader.leave();
    retired.collect();
    CHECK(destroyed == 1);
    CHECK(retired.empty());
  }

  TEST_CASE("with no reader retired objects are freed - and a destroyed list frees what it kept") {
    std::atomic<int> destroyed{0};
    {
      RetiredList retired;
      retired.retire(new Tracked{&destroyed});
      retired.collect();
      CHECK(destroyed == 1);
      ParkedReader reader;
      retired.retire(new Tracked{&destroyed});
      retired.collect();
      CHECK(destroyed == 1);
      reader.leave();
    }
    CHECK(destroyed == 2);
  }
}
