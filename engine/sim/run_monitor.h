#pragma once
// The instrumentation of a run (Simulate): its wall clock, the time of each step, the pace
// of the progress callback, and the totals the end-of-run summary reports. The run loop
// tells it what happened; it never steers the loop.

#include <chrono>
#include <cstdint>

#include "engine/integrator/step_stats.h"
#include "engine/sim/recorder.h"
#include "engine/sim/simulate.h"

namespace csim::sim {

class RunMonitor {
 public:
  /// Starts the run's wall clock.
  RunMonitor(const RunControl& control, int64_t total_steps);

  /// A step starts.
  void StepStarted();
  /// The step completed with `stats`: adds them to the totals and returns the row's solver
  /// statistics (with the step's wall time).
  SolverStats StepCompleted(const integrator::StepStats& stats);
  /// Reports progress at simulated time `time` after `step` steps, at most every
  /// kProgressInterval of wall time.
  void ReportProgress(int64_t step, double time);
  /// The summary of a run that ended after `steps` steps at simulated time `sim_time`:
  /// steps, times and iteration totals into `result` (status and reason are the loop's).
  void Summarize(int64_t steps, double sim_time, RunResult* result) const;

  /// Wall time between progress reports [s].
  static constexpr double kProgressInterval = 0.2;

 private:
  using Clock = std::chrono::steady_clock;
  const RunControl& control_;
  int64_t total_steps_ = 0;
  Clock::time_point start_, step_start_;
  double last_progress_ = 0.0;  // wall time of the last report [s]
  int64_t iterations_ = 0;      // summed over the steps
  int max_iterations_ = 0;
  double max_momentum_error_ = 0.0;
};

}  // namespace csim::sim
