#include "engine/io/background_job.h"

#include <signal.h>

#include <utility>

#include "engine/common/check.h"

namespace csim::io {

BackgroundJob::BackgroundJob(std::function<void()> job)
    : job_(std::move(job)), thread_([this] { Loop(); }) {}

BackgroundJob::~BackgroundJob() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return !pending_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BackgroundJob::Submit() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    CSIM_CHECK(!in_flight_);
    pending_ = in_flight_ = true;
  }
  cv_.notify_all();
}

void BackgroundJob::Wait() {
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return !pending_; });
    in_flight_ = false;
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

void BackgroundJob::WaitUntilDone() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !pending_; });
}

bool BackgroundJob::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_;
}

void BackgroundJob::Loop() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return pending_ || stop_; });
    if (!pending_) return;  // stop_, nothing left to run
    lock.unlock();
    std::exception_ptr error;
    try {
      job_();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    pending_ = false;
    cv_.notify_all();
  }
}

}  // namespace csim::io
