// csim_pool_bench: what one parallel loop of csim's ThreadPool costs (engine/common/
// thread_pool.h), the figure that decides which stages of a step are worth running on
// threads. A plain harness: it prints, per thread count, the wall time of one
// ParallelFor whose body does nothing (the dispatch: waking the workers and waiting for
// them), back to back and with a stretch of serial work between loops, as a step has.
//
//   build/bench/csim_pool_bench [--threads 2] [--loops 20000] [--gap-us 30]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/common/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

double MicrosecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Serial work of about `us` microseconds that the compiler cannot drop.
volatile double g_sink = 0.0;
void SerialWork(double us) {
  const Clock::time_point start = Clock::now();
  double x = 1.0;
  while (MicrosecondsSince(start) < us) x = x * 1.0000001 + 1e-9;
  g_sink = x;
}

// Median over `loops` of the time of one ParallelFor of `count` empty indices, with
// `gap_us` of serial work before each (not timed).
double MedianLoopMicroseconds(csim::ThreadPool& pool, int count, int loops, double gap_us) {
  std::vector<double> times(loops);
  std::vector<int> touched(count);
  auto body = [&](int index, int) { touched[index] = 1; };
  for (int k = 0; k < loops; ++k) {
    if (gap_us > 0) SerialWork(gap_us);
    const Clock::time_point start = Clock::now();
    pool.ParallelFor(count, body);
    times[k] = MicrosecondsSince(start);
  }
  std::nth_element(times.begin(), times.begin() + loops / 2, times.end());
  return times[loops / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int max_threads = 2, loops = 20000;
  double gap_us = 30.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) max_threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--loops")) loops = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--gap-us")) gap_us = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--threads T] [--loops N] [--gap-us US]\n", argv[0]);
      return 2;
    }
  }
  if (max_threads < 1 || loops < 1 || gap_us < 0) {
    std::fprintf(stderr, "csim_pool_bench: --threads and --loops must be >= 1, --gap-us >= 0\n");
    return 2;
  }
  std::printf("csim_pool_bench: median wall time of one ParallelFor with an empty body [us], "
              "%d loops each\n", loops);
  std::printf("| threads | indices | back to back | after %.0f us of serial work |\n", gap_us);
  std::printf("|---|---|---|---|\n");
  for (int threads = 1; threads <= max_threads; ++threads) {
    csim::ThreadPool pool(threads);
    for (int count : {2, 64}) {
      const double tight = MedianLoopMicroseconds(pool, count, loops, 0.0);
      const double gapped = MedianLoopMicroseconds(pool, count, std::max(1, loops / 10), gap_us);
      std::printf("| %d | %d | %.2f | %.2f |\n", threads, count, tight, gapped);
    }
  }
  return 0;
}
