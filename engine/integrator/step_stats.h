#pragma once
// What a constrained step reports about itself (flows to /solver/* and to the benchmark):
// the solve's statistics and the wall time of its stages. Instrumentation only: the step
// never reads it.

#include <chrono>
#include <limits>

#include "engine/contact/contact_problem_builder.h"
#include "engine/geometry/collision_world.h"
#include "engine/integrator/theta_method.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver.h"

namespace csim::integrator {

/// Statistics of one step. With constraints they are the SAP solve's; without, the
/// free-motion solve's.
struct StepStats {
  int iterations = 0;            ///< Newton iterations
  double momentum_error = 0.0;   ///< SAP eq. 32, or the free-motion residual
  double cost = 0.0;             ///< [J] SAP cost at the solution (0 without constraints)
  /// Condition number of the Newton matrix at the solution, the largest over islands
  /// (solver::SapSolverStats::condition_number); NaN when not estimated or without a
  /// Newton solve.
  double condition_number = std::numeric_limits<double>::quiet_NaN();
  int free_motion_iterations = 0;///< Newton iterations of the free-motion stage
  int num_constraints = 0;       ///< contacts and active limits
  // Wall time of the stages of the last step [s] (steady clock).
  double free_motion_seconds = 0.0;  ///< CalcFreeMotion: v*, A and its factor
  double collision_seconds = 0.0;    ///< broad and narrow phase (part of the problem build)
  double build_seconds = 0.0;        ///< kinematics at q0 and problem build, collision excluded
  double solve_seconds = 0.0;        ///< SAP solve (its own split is in result.stats)
  geometry::CollisionCounts collision_pairs;  ///< what the collision query's time went to
};

/// Reads the clock at the boundaries of a step's stages, from its construction (the step's
/// start) on, when `enabled` (ContactStepWorkspace::SetStageTiming); else it reads none and
/// the stage times stay 0: on a contact-free arm the reads were a tenth of the step.
class StepStageClock {
 public:
  explicit StepStageClock(bool enabled) : enabled_(enabled), start_(Now()) {}
  void FreeMotionDone() { free_motion_done_ = Now(); }
  void BuildDone() { build_done_ = Now(); }
  /// At the end of the solve: the stage times into `stats`, with the collision query's own
  /// time and counts (from `builder`) taken out of the build.
  void SolveDone(const contact::ContactProblemBuilder& builder, StepStats* stats) const;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point Now() const { return enabled_ ? Clock::now() : Clock::time_point{}; }
  bool enabled_;
  Clock::time_point start_, free_motion_done_, build_done_;
};

/// The statistics of a successful step: the free motion's (ws) and those of the solve of its
/// `num_constraints` constraints (contacts, limits, rows of every kind).
void RecordSolveStats(const StepWorkspace& ws, int num_constraints,
                      const solver::SapSolverStats& solve, StepStats* stats);

}  // namespace csim::integrator
