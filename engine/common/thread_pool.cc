#include "engine/common/thread_pool.h"

#include <chrono>

#include "engine/common/check.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace csim {
namespace {

// Tells the core that this is a spin-wait loop (cheaper for its sibling hyperthread).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Polls `ready` for up to `microseconds`; returns whether it became true. The clock is read
// only every 64 polls (a read costs about as much as the poll loop's 64 pauses).
template <typename Ready>
bool SpinUntil(Ready ready, double microseconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double, std::micro>(microseconds));
  for (;;) {
    for (int k = 0; k < 64; ++k) {
      if (ready()) return true;
      CpuRelax();
    }
    if (Clock::now() >= end) return ready();
  }
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  CSIM_CHECK(num_threads >= 1);
  workers_.reserve(num_threads - 1);
  for (int t = 1; t < num_threads; ++t) workers_.emplace_back(&ThreadPool::WorkerMain, this, t);
}

ThreadPool::~ThreadPool() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
  }
  start_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void ThreadPool::Run(int count, Function function, void* context) {
  if (workers_.empty() || count <= 1) {  // nothing to share: no synchronization
    for (int i = 0; i < count; ++i) function(context, i, 0);
    return;
  }
  function_ = function;
  context_ = context;
  count_ = count;
  next_.store(1, std::memory_order_relaxed);  // index 0 is the caller's (see the header)
  busy_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    // Under the mutex, so that a worker about to sleep either sees the new generation in
    // its wait predicate or is already waiting when notify_all comes.
    const std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);  // publishes the loop above
  }
  start_.notify_all();  // cheap when every worker is spinning (no sleeper to wake)
  function(context, 0, 0);
  Work(0);
  // Every index is taken; wait until the workers' calls have returned (acquire: their
  // writes are then visible to the caller).
  const auto finished = [this] { return busy_.load(std::memory_order_acquire) == 0; };
  if (SpinUntil(finished, kSpinMicroseconds)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, finished);
}

void ThreadPool::Work(int thread) {
  for (int i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
       i = next_.fetch_add(1, std::memory_order_relaxed))
    function_(context_, i, thread);
}

void ThreadPool::WorkerMain(int thread) {
  long seen = 0;
  const auto woken = [&] {
    return stop_.load(std::memory_order_acquire) ||
           generation_.load(std::memory_order_acquire) != seen;
  };
  for (;;) {
    if (!SpinUntil(woken, kSpinMicroseconds)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, woken);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    Work(thread);
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // The last one: the caller may be asleep in done_.wait. Taking the mutex orders this
      // notify after its predicate check, so the wake-up is not lost.
      const std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace csim
