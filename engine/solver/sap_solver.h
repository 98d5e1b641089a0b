#pragma once
// The Semi-Analytic Primal (SAP) solver (docs/design/sap-solver.md; SAP §IV, Algorithm 2): Newton's
// method with line search on the strongly convex cost (SAP eq. 24)
//   ell_p(v) = 1/2 ||v - v*||_A^2 + sum_k ell_k(J_k v)
//   grad     = A (v - v*) - J^T gamma            (momentum residual, SAP eq. 18)
//   H        = A + J^T G J
// over the cliques touched by constraints (the others get v = v* untouched).
//
// A solve:
//   1. the problem in reduced coordinates, the guess loaded          (sap_workspace.h)
//   2. which contacts join islands                                   (deferred_contacts.h)
//   3. the islands, each an independent problem                     (islands.h)
//   4. SAP's Newton method on each island, in turn or on the threads (sap_newton.h), with
//      the warm start of the active set                               (active_set_prediction.h)
//      and each island's stopping criterion                           (sap_stopping_criteria.h)
//   5. while deferred contacts touch at the solution: merge their islands, solve those again
//   6. the result and the statistics; on request the diagnostics, which change neither:
//      Newton's history (newton_trace.h) and the condition number of the Newton matrix at
//      the solution (newton_condition.h).
// `iterations` is the largest island's count, i.e. the Newton rounds until the last island
// stopped (as for one problem).
//
// Threads (set_num_threads): islands are handed out to a persistent pool (thread_pool.h),
// largest first, each thread with its own scratch; since an island's result depends on
// nothing else, v, gamma and the statistics (timings aside) are bit-identical for any
// thread count. Every island is solved even when another fails, and a failure reports the
// lowest-numbered failing island, so the status does not depend on the threads either.
// Rejected: lock-step rounds over all islands sharing one factorization (a round waits for
// its slowest island, and the shared system cannot be split between threads).
//
// Memory: the workspaces are members, grown on demand and never shrunk; a solve on a
// problem no larger than a previous one does not allocate, with any number of threads.

#include <atomic>
#include <limits>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "engine/common/step_status.h"
#include "engine/common/thread_pool.h"
#include "engine/solver/active_set_prediction.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/deferred_contacts.h"
#include "engine/solver/newton_condition.h"
#include "engine/solver/newton_trace.h"
#include "engine/solver/sap_solver_parameters.h"
#include "engine/solver/sap_termination.h"
#include "engine/solver/sap_workspace.h"

namespace csim::solver {

/// Per-solve statistics (flow to /solver/* in the output file).
struct SapSolverStats {
  SapTermination termination = SapTermination::kNoConstraints;
  /// Newton updates of the island that took the most (the rounds until the last island
  /// stopped). An island that a merge formed (SapSolverParameters::defer_separated) counts
  /// its parts' updates too, those of the part that took the most: the longest chain of
  /// Newton updates that led to the solution, as in lock-step rounds where a merged island
  /// starts once its parts are done.
  int iterations = 0;
  int line_search_iterations = 0;  ///< line-search cost evaluations, summed over islands
  /// Dimensionless momentum error at the returned v (SAP eq. 32, docs/design/accuracy-metrics.md
  /// §1): ||D grad|| / max(||D p||, ||D j_c||), over the participating velocities (0 if both
  /// norms are 0).
  double momentum_error = 0.0;
  double cost = 0.0;               ///< ell_p at the returned v [J]
  int num_participating_cliques = 0;
  int num_participating_velocities = 0;
  int num_islands = 0;                 ///< independent islands (islands.h)
  /// Newton iterations per island weighted by its share of the participating velocities:
  /// the work actually done, in units of whole-problem iterations (<= iterations).
  double mean_island_iterations = 0.0;
  // Summed over islands, hence over threads: with several threads they can exceed the
  // solve's wall time.
  double assembly_seconds = 0.0;       ///< Hessian assembly, summed [s]
  double factorization_seconds = 0.0;  ///< Cholesky factorization and solve, summed [s]
  double line_search_seconds = 0.0;    ///< line searches, summed [s]
  /// Islands whose directions used predicted regions (at least one), and of those the ones
  /// where a predicted direction was not a descent direction at least once (the plain one
  /// was used instead).
  int predicted_islands = 0;
  int prediction_fallbacks = 0;
  /// Newton updates summed over islands, by kind (they add up to the islands' iterations):
  /// along a predicted direction; plain ones after which some constraint's quadratic piece
  /// (Constraint::Calc; for SAP's friction cone its region: stiction, sliding, no contact)
  /// differs from the one before (an active-set change); and plain ones that changed no
  /// constraint's piece (Newton's convergence on fixed pieces: on the sliding contacts'
  /// curved cost, or the last step to the tolerance). Where a big island's iterations go
  /// (results/benchmarks.md).
  int predicted_updates = 0;
  int active_set_updates = 0;
  int smooth_updates = 0;
  /// With SapSolver::set_condition_estimate: the 2-norm condition number of the Newton
  /// matrix H = A + J^T G J at the solution, the largest over the islands
  /// (newton_condition.h); NaN when not estimated (off, no constraints, a failed solve, or
  /// an island whose H could not be factorized).
  double condition_number = std::numeric_limits<double>::quiet_NaN();
};

/// Output of a solve. Vectors are resized only when the problem size changes.
struct SapSolverResult {
  StepStatus status;      ///< kOk, kNotConverged or kNonFinite, with a reason
  Eigen::VectorXd v;      ///< velocities (num_velocities); the last iterate on failure
  Eigen::VectorXd gamma;  ///< impulses stacked in constraint order (num_constraint_rows) [N s]
  Eigen::VectorXd v_c;    ///< constraint velocities J v, without kind-specific biases
  SapSolverStats stats;
};

class SapSolver {
 public:
  explicit SapSolver(const SapSolverParameters& parameters = {});

  const SapSolverParameters& parameters() const { return parameters_; }
  void set_parameters(const SapSolverParameters& parameters) { parameters_ = parameters; }

  /// Threads that solve islands concurrently (>= 1). 1 (the default): islands are solved in
  /// turn on the calling thread, no thread exists. n > 1: a pool of n - 1 workers is started
  /// here, once, and used by every Solve. Results are bit-identical for every n.
  void set_num_threads(int num_threads);
  int num_threads() const { return pool_ != nullptr ? pool_->num_threads() : 1; }

  /// A flag (e.g. set by a SIGTERM handler) that, once true, ends every island's solve at
  /// its next Newton iteration with kInterrupted; nullptr (the default): never. A step of
  /// a huge, densely coupled pile can iterate for minutes, longer than a batch system
  /// waits between SIGTERM and SIGKILL; abandoning it keeps every step already done.
  void set_stop_flag(const std::atomic<bool>* stop) { stop_ = stop; }

  /// Solves `problem` from the initial guess v_guess (num_velocities; only the
  /// participating cliques' entries are used). Writes `result` and returns its status.
  StepStatus Solve(const ContactProblem& problem, const Eigen::Ref<const Eigen::VectorXd>& v_guess,
                   SapSolverResult* result);

  /// Times the Newton phases (assembly, factorization, line search) into the statistics;
  /// off by default, since a clock read costs about as much as a small island's assembly.
  void set_time_phases(bool on) { ws_.time_phases = on; }

  /// Estimates, after every successful Solve, the condition number of the Newton matrix at
  /// the solution (SapSolverStats::condition_number; newton_condition.h): one more
  /// factorization per island and two Lanczos runs. Off by default. Changes no result:
  /// v, gamma and the other statistics are the same bits either way.
  void set_condition_estimate(bool on) { estimate_condition_ = on; }
  /// The estimator, for tests that set its Lanczos parameters.
  NewtonConditionEstimator& condition_estimator() { return condition_; }

  /// Records each Solve's Newton history (newton_trace.h) into trace() from now on, or
  /// stops recording; `true` also empties trace(). Off by default; a traced Solve may
  /// allocate, its results are the same bits.
  void set_trace(bool on);
  /// The history of the last traced Solve: one row per Newton iteration, 0 to
  /// SapSolverStats::iterations; empty for a problem without constraints.
  const std::vector<NewtonTraceRow>& trace() const { return trace_.rows(); }

  /// The islands of the last Solve, for statistics (where the Newton work goes): their
  /// number (0 when the problem had no constraint), and for island i < num_islands() its
  /// cliques and the Newton iterations it took.
  int num_islands() const { return ws_.islands.num_islands; }
  int island_num_cliques(int i) const {
    return ws_.islands.clique_start[i + 1] - ws_.islands.clique_start[i];
  }
  int island_iterations(int i) const { return ws_.island[i].iterations; }
  /// Island i's Newton updates by kind (SapSolverStats): along a predicted direction, plain
  /// with an active-set change, plain on fixed pieces (smooth).
  int island_predicted_updates(int i) const { return ws_.island[i].predicted_updates; }
  int island_active_set_updates(int i) const { return ws_.island[i].active_set_updates(); }
  int island_smooth_updates(int i) const { return ws_.island[i].smooth_updates; }
  /// Islands of the last Solve that a merge replaced (SapSolverParameters::defer_separated),
  /// with the Newton updates they took before: work that the islands above do not count.
  /// The final partition of the last Solve (tests compare per-island quantities with it).
  const Islands& islands() const { return ws_.islands; }
  /// Island i's condition number of the last estimate (set_condition_estimate), i <
  /// num_islands(); NaN when its H could not be factorized.
  double island_condition_number(int i) const { return island_condition_[i]; }
  using MergedIsland = solver::MergedIsland;
  const std::vector<MergedIsland>& merged_islands() const { return deferred_.merged(); }

 private:
  // Solves every island of the current partition not carried over, in turn or on the pool.
  void SolveIslands();
  // SolveIslands, recording the round's Newton history in a traced solve.
  void SolveRound();
  // stats->condition_number after a solve whose every island succeeded.
  void EstimateCondition(SapSolverStats* stats);
  // Cost, momentum error and island statistics into stats.
  void FinishStats(SapSolverStats* stats) const;
  // The islands' outcome: the lowest-numbered failure, else kOptimality if every island met
  // SAP eq. 26, else the cost criterion.
  StepStatus FinishIslands(SapSolverResult* result);
  // Writes v, gamma, v_c and the status for termination t.
  StepStatus Finish(SapTermination t, const char* reason, SapSolverResult* result);

  SapSolverParameters parameters_;
  const std::atomic<bool>* stop_ = nullptr;  // see set_stop_flag
  std::unique_ptr<ThreadPool> pool_;         // null with one thread
  SapWorkspace ws_;
  ActiveSetPrediction prediction_;
  DeferredContacts deferred_;
  std::vector<int> schedule_;  // islands in the order they are handed out to the threads
  bool estimate_condition_ = false;     // see set_condition_estimate
  NewtonConditionEstimator condition_;
  std::vector<double> island_condition_;  // per island of the last estimate
  bool trace_on_ = false;               // see set_trace
  NewtonTrace trace_;
  std::vector<char> solved_;            // per island of a traced round: solved in it
};

}  // namespace csim::solver
