#include <doctest/doctest.h>
#include <poll.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "kiln/core/stack_threads.h"

using namespace kiln;

namespace {

constexpr std::size_t kStack = std::size_t{256} << 20;

// Waits for the job's end as the compile callers do.
void wait_done(int done_fd) {
  pollfd p{done_fd, POLLIN, 0};
  while (::poll(&p, 1, -1) <= 0 || !(p.revents & POLLIN)) {}
}

// Recursion that touches `frames` x 16 KiB of stack: far more than a default 8 MiB thread has.
std::uint64_t deep(int frames) {
  volatile unsigned char frame[16 << 10];
  for (std::size_t i = 0; i < sizeof frame; i += 4096) frame[i] = static_cast<unsigned char>(frames);
  const std::uint64_t below = frames > 1 ? deep(frames - 1) : 0;
  return below + frame[0];  // used after the call: no tail call
}

}  // namespace

TEST_SUITE("core/concurrent") {
  TEST_CASE("a job runs on a large stack - 64 MiB deep - and the thread keeps none of it afterwards") {
    // What a kept thread holds after a job that stays shallow (its frames, and the thread's TLS at
    // the top of its stack, larger under the sanitizers).
    REQUIRE(core::run_on_stack_thread(
        kStack, [] {}, wait_done));
    const std::size_t shallow = core::largest_idle_stack_resident_bytes();
    std::uint64_t sum = 0;
    REQUIRE(core::run_on_stack_thread(
        kStack, [&] { sum = deep(4096); }, wait_done));
    std::uint64_t expected = 0;
    for (int f = 1; f <= 4096; ++f) expected += f % 256;
    CHECK(sum == expected);
    // The kept thread gave back what the job touched beyond the part it keeps.
    CHECK(core::largest_idle_stack_resident_bytes() <= shallow + core::kKeptStackBytes + (256 << 10));
  }

  TEST_CASE("one caller's jobs run on one kept thread - callers at once get threads of their own") {
    std::thread::id first, second;
    REQUIRE(core::run_on_stack_thread(
        kStack, [&] { first = std::this_thread::get_id(); }, wait_done));
    REQUIRE(core::run_on_stack_thread(
        kStack, [&] { second = std::this_thread::get_id(); }, wait_done));
    CHECK(first == second);
    CHECK(first != std::this_thread::get_id());
    // Two callers whose jobs each wait for the other's to start: only two threads finish them.
    std::atomic<int> started{0};
    std::thread::id ids[2];
    auto call = [&](int i) {
      (void)core::run_on_stack_thread(
          kStack,
          [&, i] {
            ids[i] = std::this_thread::get_id();
            started.fetch_add(1);
            while (started.load() < 2) std::this_thread::yield();
          },
          wait_done);
    };
    std::thread a(call, 0), b(call, 1);
    a.join();
    b.join();
    CHECK(ids[0] != ids[1]);
  }
}
