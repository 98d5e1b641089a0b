// ThreadPool: every index runs exactly once per loop, on a thread id that no concurrent call
// shares, loop after loop on the same workers; one thread runs inline; a loop does not
// allocate; the workers' plain writes are visible to the caller when the loop returns,
// loop after loop and after a pause; index 0 runs on the caller; a worker that wakes after
// the caller took every index stays out of that loop, yet joins a long one.

#include "engine/common/thread_pool.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "tests/support/allocation_counter.h"

namespace csim {
namespace {

TEST_CASE("thread pool runs every index once, on distinct concurrent threads", "[common][threads]") {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    CHECK(pool.num_threads() == threads);
    for (int count : {0, 1, 2, 3, 17, 1000}) {
      std::vector<std::atomic<int>> calls(count);
      std::vector<std::atomic<int>> in_use(threads);  // calls running per thread id
      std::atomic<bool> shared_id{false}, bad_id{false};
      auto body = [&](int index, int thread) {
        if (thread < 0 || thread >= threads) {
          bad_id = true;
          return;
        }
        if (in_use[thread].fetch_add(1) != 0) shared_id = true;
        calls[index].fetch_add(1);
        in_use[thread].fetch_sub(1);
      };
      pool.ParallelFor(count, body);
      INFO(threads << " threads, " << count << " indices");
      CHECK_FALSE(bad_id);
      CHECK_FALSE(shared_id);
      for (int i = 0; i < count; ++i) CHECK(calls[i] == 1);
    }
  }
}

TEST_CASE("thread pool: one thread runs on the caller", "[common][threads]") {
  ThreadPool pool(1);
  const std::thread::id caller = std::this_thread::get_id();
  bool on_caller = true;
  auto body = [&](int, int) { on_caller = on_caller && std::this_thread::get_id() == caller; };
  pool.ParallelFor(10, body);
  CHECK(on_caller);
}

TEST_CASE("thread pool: index 0 runs on the caller, as thread 0", "[common][threads]") {
  ThreadPool pool(3);
  const std::thread::id caller = std::this_thread::get_id();
  for (int loop = 0; loop < 200; ++loop) {
    std::thread::id ran_on;
    int thread_of_zero = -1;
    auto body = [&](int index, int thread) {
      if (index != 0) return;
      ran_on = std::this_thread::get_id();
      thread_of_zero = thread;
    };
    pool.ParallelFor(8, body);
    REQUIRE(ran_on == caller);
    REQUIRE(thread_of_zero == 0);
  }
}

TEST_CASE("thread pool: a loop allocates nothing", "[common][threads][allocation]") {
  ThreadPool pool(3);
  std::vector<double> out(256, 0.0);
  auto body = [&](int index, int) { out[index] += index; };
  pool.ParallelFor(256, body);
  // Every worker must have run once before the count: a thread's first work allocates
  // (under ASan, its runtime's per-thread state), and a fast loop may leave a worker idle.
  // Slow items spread the warm-up loops over all of them.
  auto slow = [](int, int) { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
  for (int warm_up = 0; warm_up < 3; ++warm_up) pool.ParallelFor(12, slow);
  const std::size_t before = testing::AllocationCount();
  for (int loop = 0; loop < 100; ++loop) pool.ParallelFor(256, body);
  CHECK(testing::AllocationCount() - before == 0);
  for (int i = 0; i < 256; ++i) CHECK(out[i] == 101.0 * i);
}

TEST_CASE("thread pool: workers' writes visible, loop after loop and after a pause", "[common][threads]") {
  // Loops back to back, and after a pause of 20 ms in which the workers wait on the
  // condition variable: every index must run once and its plain (non-atomic) write be
  // seen by the caller when ParallelFor returns.
  ThreadPool pool(3);
  std::vector<long> out(64, 0);
  for (int loop = 1; loop <= 40; ++loop) {
    if (loop % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto body = [&](int index, int) { out[index] += loop; };
    pool.ParallelFor(64, body);
    long expected = 0;
    for (int k = 1; k <= loop; ++k) expected += k;
    for (int i = 0; i < 64; ++i) {
      INFO("loop " << loop << ", index " << i);
      REQUIRE(out[i] == expected);
    }
  }
}

TEST_CASE("thread pool: short loops back to back, each index once", "[common][threads]") {
  // Loops shorter than a worker's wake-up: the caller takes every index and closes the
  // loop; workers still waking must neither run an index of it nor miss or repeat one of
  // the next loops (which they may join).
  ThreadPool pool(3);
  std::vector<int> calls(3, 0);
  for (int loop = 1; loop <= 20000; ++loop) {
    const int count = 2 + loop % 2;
    auto body = [&](int index, int) { ++calls[index]; };
    pool.ParallelFor(count, body);
    for (int i = 0; i < count; ++i) {
      if (calls[i] != 1) FAIL("loop " << loop << ", index " << i << ": " << calls[i] << " calls");
      calls[i] = 0;
    }
  }
}

TEST_CASE("thread pool: workers join a loop that outlasts their wake-up", "[common][threads]") {
  // 20 indices of 5 ms each: 100 ms on the caller alone, while a sleeping worker wakes in
  // well under a millisecond; some index must run on a worker.
  ThreadPool pool(2);
  std::vector<int> thread_of(20, -1);
  auto body = [&](int index, int thread) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    thread_of[index] = thread;
  };
  pool.ParallelFor(20, body);
  int on_worker = 0;
  for (int t : thread_of) on_worker += t == 1;
  CHECK(on_worker > 0);
  CHECK(thread_of[0] == 0);
}

}  // namespace
}  // namespace csim
