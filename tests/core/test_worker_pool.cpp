#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "kiln/core/worker_pool.h"

using kiln::core::WorkerPool;

TEST_SUITE("core/concurrent") {
  TEST_CASE("parallel_for calls the body once for every index") {
    WorkerPool pool(3);
    std::vector<std::atomic<int>> calls(1000);
    pool.parallel_for(calls.size(), [&](std::size_t i) { calls[i].fetch_add(1); });
    for (std::size_t i = 0; i < calls.size(); ++i) REQUIRE(calls[i].load() == 1);
  }

  TEST_CASE("parallel_for uses the workers and the calling thread") {
    WorkerPool pool(3);
    std::mutex mu;
    std::set<std::thread::id> threads;
    std::atomic<int> waiting{0};
    // Every call holds its thread until three threads are inside: two workers and the caller.
    pool.parallel_for(3, [&](std::size_t) {
      {
        std::lock_guard lock(mu);
        threads.insert(std::this_thread::get_id());
      }
      waiting.fetch_add(1);
      while (waiting.load() < 3) std::this_thread::yield();
    });
    CHECK(threads.size() == 3);
    CHECK(threads.count(std::this_thread::get_id()) == 1);
  }

  TEST_CASE("parallel_for inside a task finishes on a pool of one thread") {
    WorkerPool pool(1);
    std::atomic<int> inner{0};
    pool.parallel_for(2, [&](std::size_t) { pool.parallel_for(50, [&](std::size_t) { inner.fetch_add(1); }); });
    CHECK(inner.load() == 100);
  }

  TEST_CASE("several threads share one pool") {
    WorkerPool pool(2);
    std::atomic<long> sum{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
      callers.emplace_back([&] { pool.parallel_for(500, [&](std::size_t i) { sum.fetch_add(long(i)); }); });
    for (auto& t : callers) t.join();
    CHECK(sum.load() == 4L * (499L * 500L / 2));
  }

  TEST_CASE("submitted tasks all run before the pool is gone") {
    std::atomic<int> ran{0};
    {
      WorkerPool pool(2);
      for (int i = 0; i < 200; ++i) pool.submit([&] { ran.fetch_add(1); });
    }
    CHECK(ran.load() == 200);
  }

  TEST_CASE("parallel_for never runs on more threads than the pool has") {
    WorkerPool pool(2);
    std::atomic<int> inside{0}, most{0};
    pool.parallel_for(64, [&](std::size_t) {
      const int now = inside.fetch_add(1) + 1;
      for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {}
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      inside.fetch_sub(1);
    });
    CHECK(most.load() <= 2);
    CHECK(most.load() >= 1);
  }

  TEST_CASE("a jobs setting of zero means one worker per hardware thread") {
    CHECK(kiln::core::worker_count(5) == 5);
    CHECK(kiln::core::worker_count(0) >= 1);
    CHECK(WorkerPool(0).size() == kiln::core::worker_count(0));
  }

}  // TEST_SUITE
