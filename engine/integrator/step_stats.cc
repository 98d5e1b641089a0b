#include "engine/integrator/step_stats.h"

#include <limits>

namespace csim::integrator {
namespace {

double SecondsBetween(std::chrono::steady_clock::time_point start,
                      std::chrono::steady_clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace

void StepStageClock::SolveDone(const contact::ContactProblemBuilder& builder,
                               StepStats* stats) const {
  stats->collision_pairs = builder.collision_counts();
  if (!enabled_) return;
  stats->free_motion_seconds = SecondsBetween(start_, free_motion_done_);
  stats->collision_seconds = builder.collision_seconds();
  stats->build_seconds = SecondsBetween(free_motion_done_, build_done_) - stats->collision_seconds;
  stats->solve_seconds = SecondsBetween(build_done_, Clock::now());
}

void RecordSolveStats(const StepWorkspace& ws, int num_constraints,
                      const solver::SapSolverStats& solve, StepStats* stats) {
  stats->free_motion_iterations = ws.iterations;
  stats->num_constraints = num_constraints;
  const bool constrained = stats->num_constraints > 0;
  stats->iterations = constrained ? solve.iterations : ws.iterations;
  stats->momentum_error = constrained ? solve.momentum_error : ws.momentum_error;
  stats->cost = constrained ? solve.cost : 0.0;
  stats->condition_number =
      constrained ? solve.condition_number : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace csim::integrator
