#pragma once
// A small persistent pool of threads that runs one parallel loop at a time (used by the
// SAP solver to solve independent islands concurrently, sap_solver.h).
//
// Design: the pool starts num_threads - 1 workers once, at construction; the thread that
// calls ParallelFor is the remaining one and works too. A loop hands out indices through an
// atomic counter (dynamic load balancing: a worker that finishes early takes the next
// index), so which thread runs which index varies from call to call; the body must make
// its result depend only on the index (per-thread scratch is selected by the `thread`
// argument). Workers sleep on a condition variable between loops. A worker joins a loop
// only while the caller still has indices to take: once the caller has run out, it closes
// the loop and waits only for the workers that joined, so a loop shorter than a worker's
// wake-up costs the caller one notification, not a wake-up of every worker (the cost of a
// loop: results/threads.md, bench/thread_pool_bench.cc). The loop body is passed as a plain
// function pointer and context, so a call does not allocate.
// Alternatives rejected: std::async or a thread per call (creation costs tens of
// microseconds per step and allocates); std::function (may allocate); spinning workers
// (they burn a core between steps while the rest of the step runs on one thread, and
// gained nothing beyond the benchmark's run-to-run spread); OpenMP (a new dependency, and
// its runtime's thread handling is not ours to test).

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace csim {

class ThreadPool {
 public:
  /// Starts num_threads - 1 worker threads (num_threads >= 1; 1 starts none). Throws
  /// std::system_error, with every thread it started joined, when the system refuses one.
  explicit ThreadPool(int num_threads);
  /// Stops and joins the workers. Precondition: no ParallelFor in progress.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads that run a loop, the caller included.
  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  /// Calls body(index, thread) once for every index in [0, count), spread over the
  /// threads; `thread` in [0, num_threads()) is unique among the calls running at the same
  /// time (0 is the caller). Index 0 always runs on the caller, first: a loop that puts its
  /// largest item first (the solver's largest island) keeps it on the thread whose caches
  /// hold what the serial stages just wrote (when a worker took it, two threads solved
  /// the clutter with walls slower than one).
  /// Returns when every call has returned. The body must not throw and must not call
  /// ParallelFor. Call from one thread at a time. Does not allocate.
  template <typename Body>
  void ParallelFor(int count, Body& body) {
    Run(count, &Invoke<Body>, &body);
  }

 private:
  using Function = void (*)(void* context, int index, int thread);

  template <typename Body>
  static void Invoke(void* context, int index, int thread) {
    (*static_cast<Body*>(context))(index, thread);
  }
  void Run(int count, Function function, void* context);
  // Takes indices of the current loop until none is left.
  void Work(int thread);
  // A worker's life: wait for a loop, work, report, until the pool stops.
  /// Asks every worker to return and joins them (the destructor, and a failed start).
  void StopWorkers();
  void WorkerMain(int thread);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;  // a new loop (or stop) for the workers
  std::condition_variable done_;   // the last worker finished the loop
  // The current loop; written under mutex_ before generation_ changes.
  Function function_ = nullptr;
  void* context_ = nullptr;
  int count_ = 0;
  std::atomic<int> next_{0};       // next index to hand out
  long generation_ = 0;            // loops started so far
  // Workers may join the current loop while it is open, i.e. until the caller has run out
  // of indices; the caller then waits only for those that joined and are still working.
  bool open_ = false;
  int joined_ = 0;                 // workers inside the current loop's Work
  bool stop_ = false;
};

}  // namespace csim
