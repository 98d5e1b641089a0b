#include "engine/common/thread_pool.h"

#include <string>
#include <system_error>

#include "engine/common/check.h"

namespace csim {

ThreadPool::ThreadPool(int num_threads) {
  CSIM_CHECK(num_threads >= 1);
  workers_.reserve(num_threads - 1);
  try {
    for (int t = 1; t < num_threads; ++t) workers_.emplace_back(&ThreadPool::WorkerMain, this, t);
  } catch (const std::system_error& e) {
    // A process or container thread limit: the workers already started must be stopped
    // and joined here, since no destructor runs for a constructor that throws (they would
    // wait forever on a destroyed condition variable: a hang deaf to SIGTERM).
    StopWorkers();
    throw std::system_error(e.code(), "cannot start worker thread " +
                                          std::to_string(workers_.size() + 1) + " of " +
                                          std::to_string(num_threads - 1) + " (try fewer threads)");
  }
}

ThreadPool::~ThreadPool() { StopWorkers(); }

void ThreadPool::StopWorkers() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& w : workers_) w.join();
  workers_.clear();
}

void ThreadPool::Run(int count, Function function, void* context) {
  if (workers_.empty() || count <= 1) {  // nothing to share: no synchronization
    for (int i = 0; i < count; ++i) function(context, i, 0);
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    function_ = function;
    context_ = context;
    count_ = count;
    next_.store(1, std::memory_order_relaxed);  // index 0 is the caller's (see the header)
    joined_ = 0;
    open_ = true;
    ++generation_;
  }
  start_.notify_all();
  function(context, 0, 0);
  Work(0);
  // Every index is taken: close the loop to workers still waking up (they have nothing to
  // do, and waiting for them to say so would cost a wake-up), then wait until the calls
  // of the workers that joined have returned (their writes are then visible to the caller
  // through the mutex).
  std::unique_lock<std::mutex> lock(mutex_);
  open_ = false;
  done_.wait(lock, [this] { return joined_ == 0; });
}

void ThreadPool::Work(int thread) {
  for (int i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
       i = next_.fetch_add(1, std::memory_order_relaxed))
    function_(context_, i, thread);
}

void ThreadPool::WorkerMain(int thread) {
  long seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!open_) continue;  // woke after the caller had taken every index
      ++joined_;
    }
    Work(thread);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (--joined_ == 0 && !open_) done_.notify_one();
  }
}

}  // namespace csim
