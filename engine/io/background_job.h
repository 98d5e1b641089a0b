#pragma once
// One fixed job run on its own thread, at most one run in flight: the HDF5 recorder's
// writes (shuffle + gzip compression of a chunk of rows), which then overlap the next
// time steps instead of stalling them.
//
// Why a thread of its own and not the engine's ThreadPool: the pool runs the caller's
// loop and returns when it is done; this job must keep running after Submit returns.
// Why one job at a time: the caller owns the data the job reads (the recorder's back
// buffers) and must not touch it, nor call the library the job calls, until Wait.
// (Debian's HDF5 is built thread-safe, with one global lock, so overlapping calls would
// be serialized anyway; Submit / Wait keep them from overlapping at all.)
//
// Signals: the thread blocks every asynchronous signal, so SIGINT and SIGTERM reach the
// run loop's thread (app/signals.h), never this one.

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace csim::io {

class BackgroundJob {
 public:
  /// Starts the thread; `job` runs once per Submit, on that thread.
  explicit BackgroundJob(std::function<void()> job);
  /// Waits for a run in flight (its exception is dropped), then stops the thread.
  ~BackgroundJob();
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  /// Starts one run of the job. Requires that no run is in flight (call Wait first).
  /// Does not allocate.
  void Submit();
  /// Blocks until the run in flight, if any, is done. Rethrows the exception it threw,
  /// once. Does not allocate unless the run threw.
  void Wait();
  /// Blocks until the run in flight, if any, is done, and leaves its exception (and the
  /// run counted as in flight) for Wait.
  void WaitUntilDone();
  /// A run is in flight: submitted and not yet waited for.
  bool busy() const;

 private:
  void Loop();

  std::function<void()> job_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool pending_ = false;  // submitted, not yet finished by the thread
  bool in_flight_ = false;  // submitted, not yet waited for
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once every other member is ready
};

}  // namespace csim::io
