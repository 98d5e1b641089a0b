#include "engine/sim/run_monitor.h"

#include <algorithm>

namespace csim::sim {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RunMonitor::RunMonitor(const RunControl& control, int64_t total_steps)
    : control_(control), total_steps_(total_steps), start_(Clock::now()) {}

void RunMonitor::StepStarted() { step_start_ = Clock::now(); }

SolverStats RunMonitor::StepCompleted(const integrator::StepStats& stats) {
  const SolverStats row{stats.iterations, stats.momentum_error, stats.cost,
                        SecondsSince(step_start_), stats.condition_number};
  iterations_ += stats.iterations;
  max_iterations_ = std::max(max_iterations_, stats.iterations);
  max_momentum_error_ = std::max(max_momentum_error_, stats.momentum_error);
  return row;
}

void RunMonitor::ReportProgress(int64_t step, double time) {
  const double elapsed = SecondsSince(start_);
  if (control_.on_progress && elapsed - last_progress_ >= kProgressInterval) {
    last_progress_ = elapsed;
    control_.on_progress({step, total_steps_, time, elapsed});
  }
}

void RunMonitor::Summarize(int64_t steps, double sim_time, RunResult* result) const {
  result->steps = steps;
  result->sim_time = sim_time;
  result->wall_time = SecondsSince(start_);
  result->mean_iterations = steps > 0 ? static_cast<double>(iterations_) / steps : 0.0;
  result->max_iterations = max_iterations_;
  result->max_momentum_error = max_momentum_error_;
}

}  // namespace csim::sim
