#include "engine/io/background_job.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <catch2/catch.hpp>

namespace csim::io {
namespace {

using namespace std::chrono_literals;

TEST_CASE("BackgroundJob runs its job once per Submit, on a thread of its own", "[io]") {
  std::atomic<int> runs{0};
  std::thread::id job_thread;
  BackgroundJob job([&] {
    job_thread = std::this_thread::get_id();
    ++runs;
  });
  for (int i = 1; i <= 3; ++i) {
    job.Submit();
    CHECK(job.busy());
    job.Wait();
    CHECK_FALSE(job.busy());
    CHECK(runs == i);
  }
  CHECK(job_thread != std::this_thread::get_id());
  job.Wait();  // nothing in flight: returns at once
  CHECK(runs == 3);
}

TEST_CASE("BackgroundJob: Submit returns while the job still runs", "[io]") {
  // The job waits (at most 5 s, so that a synchronous Submit fails instead of hanging)
  // for a flag the caller raises only after Submit has returned.
  std::atomic<bool> released{false}, saw_release{false};
  BackgroundJob job([&] {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!released && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    saw_release = released.load();
  });
  job.Submit();
  released = true;
  job.Wait();
  CHECK(saw_release);
}

TEST_CASE("BackgroundJob: Wait rethrows the job's exception, once", "[io]") {
  std::atomic<int> run{0};
  BackgroundJob job([&] {
    if (++run == 1) throw std::runtime_error("disk full");
  });
  job.Submit();
  CHECK_NOTHROW(job.WaitUntilDone());  // done, the error kept for Wait
  CHECK(run == 1);
  CHECK_THROWS_WITH(job.Wait(), "disk full");
  job.Wait();  // reported already
  job.Submit();
  CHECK_NOTHROW(job.Wait());
  CHECK(run == 2);
}

TEST_CASE("BackgroundJob: the destructor lets a run in flight finish", "[io]") {
  std::atomic<bool> finished{false};
  {
    BackgroundJob job([&] {
      std::this_thread::sleep_for(50ms);
      finished = true;
    });
    job.Submit();
  }
  CHECK(finished);
}

TEST_CASE("BackgroundJob: its thread leaves SIGINT and SIGTERM to the others", "[io]") {
  // app/signals.h: a Ctrl-C must reach the run loop's thread, which stops the run.
  bool blocks_int = false, blocks_term = false;
  BackgroundJob job([&] {
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    blocks_int = sigismember(&mask, SIGINT) == 1;
    blocks_term = sigismember(&mask, SIGTERM) == 1;
  });
  job.Submit();
  job.Wait();
  CHECK(blocks_int);
  CHECK(blocks_term);
}

}  // namespace
}  // namespace csim::io
