#pragma once
// The Semi-Analytic Primal (SAP) solver (math.md §4; SAP §IV, Algorithm 2): Newton's
// method with line search on the strongly convex cost (SAP eq. 24)
//   ell_p(v) = 1/2 ||v - v*||_A^2 + sum_k ell_k(J_k v)
//   grad     = A (v - v*) - J^T gamma            (momentum residual, SAP eq. 18)
//   H        = A + J^T G J
// over the cliques touched by constraints (the others get v = v* untouched).
//
// Islands (islands.h): cliques coupled by no chain of constraints are independent problems.
// Each island is solved to completion by itself: its own Newton iterations (evaluate, stop
// test, assemble and factorize its part of H, solve, line search, update) and its own
// stopping test; `iterations` is the largest island's count, i.e. the Newton rounds until
// the last island stopped (as for one problem). With one island everything below is
// literal; with K > 1 islands each island must meet SAP eq. 26 with eps_a / sqrt(K) and
// eps_r / sqrt(2), which implies SAP eq. 26 for the whole problem (proof in SetupIslands):
// the stopping criterion is never looser than the global one. An island's arithmetic
// touches only its own data (and those two tolerances), so its result does not depend on
// the other islands, nor on the order in which islands are solved.
//
// Deferred contacts (SapSolverParameters::defer_separated): the islands are formed from the
// contacts that can touch. A contact between two cliques whose impulse is zero at the
// guess even with its normal velocity lowered by separated_margin is deferred: it joins no
// island and no island evaluates it. Once every island has converged, the deferred
// contacts are evaluated at the solution; those in contact there couple their cliques, the
// islands they join are solved again from their parts' solutions (the unchanged ones keep
// their converged state), and so on until no deferred contact is in contact, at most once
// per deferred contact. The result is SAP's: a deferred contact left apart has zero
// impulse, zero cost and no term in the gradient, so the islands' criteria imply SAP eq. 26
// for the whole problem as above (a merge round has fewer islands, so the tolerances it
// uses are never tighter than the islands it keeps were solved with, and never looser than
// the final partition needs). The partition depends only on the problem and the guess.
//
// Threads (set_num_threads): islands are handed out to a persistent pool (thread_pool.h),
// largest first, each thread with its own scratch; since an island's result depends on
// nothing else, v, gamma and the statistics (timings aside) are bit-identical for any
// thread count. Every island is solved even when another fails, and a failure reports the
// lowest-numbered failing island, so the status does not depend on the threads either.
// Rejected: lock-step rounds over all islands sharing one factorization (the previous
// design: a round waits for its slowest island, and the shared system cannot be split
// between threads).
//
// Warm start of the active set (csim's addition to SAP; SapSolverParameters::predict_stiction):
// the first Newton direction of an island, and each of the next ones (up to
// prediction_iterations, default 20) while the line search cut the previous predicted step
// short (alpha < 0.9), use, for each constraint that offers one (Constraint::CalcPredicted:
// contacts that ended the previous step in stiction and are compressive at the current
// iterate) and whose model has not contradicted itself in this solve (its impulse at the
// model's minimum outside the predicted region, Constraint::PredictionHoldsAt; a crossing,
// below, makes a contradicted prediction count again), the model
// of the predicted region instead of the region its impulse falls in at the iterate v:
//   dv = -H~^{-1} (grad - J^T (gamma~ - gamma)),   H~ = A + J^T G~ J,
// i.e. the Newton step of the cost with those constraints' stiction quadratic continued
// to v. Why: v0 is the previous solution, but the contact points and frames moved with the
// step, so J v0 carries slips of ~1 mm/s that the tiny R_t turns into sliding impulses;
// plain Newton then rediscovers stiction one contact per iteration, with short line-search
// steps (measured on clutter-40: 11 % fewer iterations over 4 seeds, csim_bench). Why more
// than the first direction: in a collapsing pile the line search cuts that step short, the
// predicted contacts keep part of their slip, and the same rediscovery starts from the
// second iteration (traced on clutter-160: the predictions were right for 85-95 % of the
// contacts, yet islands of 40-70 bodies took 16-28 iterations; see
// SapSolverParameters::prediction_iterations for the measured gain). Each step is still
// taken by the exact line search on the true cost, and only if dv is a descent direction of
// the true cost (otherwise the plain Newton direction is used), so the cost decreases
// monotonically; after the predicted directions the iteration is SAP's, whose global
// convergence (SAP appendix E) holds from any starting point.
// Predictions learnt within the solve (SapSolverParameters::predict_crossings): after a
// step the line search cut short, a constraint whose full step passed through its predicted
// region (Constraint::StepCrossesPredictedRegion: a sliding contact carried through
// stiction, or close past it) is predicted too, also when an earlier prediction of it was
// contradicted, and the next direction is predicted, within the same
// prediction_iterations budget (so the iteration is still SAP's after finitely many
// directions) and with the same safeguards.
//
// Stopping (math.md §4.2, §4.3), checked before each factorization, so an optimal warm start
// returns after zero iterations (with min_iterations() = 1, only a guess that meets the
// criterion to a millionth of the tolerance, SapSolverParameters::exact_guess_fraction):
//   optimality (SAP eq. 26): ||D grad|| <= eps_a + eps_r max(||D p||, ||D j_c||),
//     D = diag(A)^{-1/2}, p = A v, j_c = J^T gamma  (Drake's scaling);
//   cost stagnation: |ell^m - ell^{m-1}| < eps_a^c + eps_r^c (|ell^m| + |ell^{m-1}|)/2 with
//     the last step alpha > 0.5, and that step along a plain (not a predicted) Newton
//     direction: a wrong prediction can give a direction along which the true cost barely
//     changes far from the optimum.
// Failure is a status, never an exception (style.md habit 9): kNotConverged after
// max_iterations or when a line search fails; kNonFinite when a NaN/inf shows up.
//
// Files: sap_solver.cc holds the Newton loop and its products; sap_solver_predictions.cc
// the warm start of the active set; sap_solver_deferred.cc the deferred contacts.
//
// Memory: every workspace is a member, grown on demand and never shrunk; a solve on a
// problem no larger than a previous one does not allocate, with any number of threads.

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "engine/common/step_status.h"
#include "engine/common/thread_pool.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/islands.h"
#include "engine/solver/newton_system.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::solver {

/// Why the solver stopped.
enum class SapTermination {
  kNoConstraints,     ///< no constraint: v = v*, zero iterations
  kOptimality,        ///< SAP eq. 26 satisfied
  kCostStagnation,    ///< cost criterion of math.md §4.3
  kMaxIterations,     ///< max_iterations reached (kNotConverged)
  kLineSearchFailed,  ///< the line search found no acceptable step (kNotConverged)
  kNotDescent,        ///< grad^T dv >= 0: ill-conditioned Newton system (kNotConverged)
  kNonFinite,         ///< NaN or inf in the iterate, cost or Hessian (kNonFinite)
  kInterrupted,       ///< the stop flag was raised between Newton iterations (kInterrupted)
};

/// Human-readable name of a termination reason.
const char* SapTerminationName(SapTermination t);

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
  /// Dimensionless momentum error at the returned v (SAP eq. 32, math.md §5):
  /// ||D grad|| / max(||D p||, ||D j_c||), over the participating velocities (0 if both
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
  /// (Constraint::QuadraticPieceAt; for SAP's friction cone its region: stiction, sliding,
  /// no contact) differs from the one before (an active-set change); and plain ones that
  /// changed no constraint's piece (Newton's convergence on fixed pieces: on the sliding
  /// contacts' curved cost, or the last step to the tolerance). Where a big island's
  /// iterations go (results/benchmarks.md).
  int predicted_updates = 0;
  int active_set_updates = 0;
  int smooth_updates = 0;
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

  /// The islands of the last Solve, for statistics (where the Newton work goes): their
  /// number (0 when the problem had no constraint), and for island i < num_islands() its
  /// cliques and the Newton iterations it took.
  int num_islands() const { return islands_.num_islands; }
  int island_num_cliques(int i) const {
    return islands_.clique_start[i + 1] - islands_.clique_start[i];
  }
  int island_iterations(int i) const { return island_[i].iterations; }
  /// Island i's Newton updates by kind (SapSolverStats): along a predicted direction, plain
  /// with an active-set change, plain on fixed pieces (smooth).
  int island_predicted_updates(int i) const { return island_[i].predicted_updates; }
  int island_active_set_updates(int i) const { return island_[i].active_set_updates(); }
  int island_smooth_updates(int i) const { return island_[i].smooth_updates; }
  /// Islands of the last Solve that a merge replaced (SapSolverParameters::defer_separated),
  /// with the Newton updates they took before: work that the islands above do not count.
  struct MergedIsland {
    int cliques = 0, iterations = 0;
    int predicted_updates = 0, active_set_updates = 0, smooth_updates = 0;
  };
  const std::vector<MergedIsland>& merged_islands() const { return merged_; }

 private:
  class AlongDirection;

  // Newton state and outcome of one island (islands.h), written only by the thread that
  // solves the island.
  struct IslandState {
    SapTermination stop = SapTermination::kOptimality;  // why it stopped
    const char* why = "";          // detail of a failure (static string)
    int iterations = 0;            // Newton updates of this island
    int prior_iterations = 0;      // the most of its parts' (a merged island; see stats)
    double ell = 0.0, ell_A = 0.0; // cost and its 1/2 ||v - v*||_A^2 part [J]
    double ell_prev = 0.0, alpha_prev = 0.0;  // for the cost criterion
    double g2 = 0.0, p2 = 0.0, j2 = 0.0;      // ||D grad||^2, ||D p||^2, ||D j_c||^2
    int line_search_iterations = 0;
    bool predicted = false, prediction_fallback = false;  // any direction (see the top)
    bool last_step_predicted = false;  // the last step followed a predicted direction
    bool new_crossings = false;  // the last step carried some constraint through its
                                 // predicted region (SapSolverParameters::predict_crossings)
    // Updates by kind (SapSolverStats); the active-set ones are the rest of `iterations`.
    // update_pending: v moved since the last EvalIsland, which then compares the pieces.
    int predicted_updates = 0, smooth_updates = 0;
    bool update_pending = false;
    int active_set_updates() const { return iterations - predicted_updates - smooth_updates; }
    bool optimal = false;          // met SAP eq. 26 at the last evaluation
    bool kinematics_current = false;  // vc_ = J v and p_ = A v hold for the current v
    double assembly_seconds = 0.0, factorization_seconds = 0.0, line_search_seconds = 0.0;
  };

  // Scratch of one thread: islands solved at the same time use different ones.
  struct ThreadScratch {
    std::vector<double> G_trial;   // one G block for the line search
    NewtonSystem::Scratch newton;  // assembly and dense-solve scratch
    // When the last search direction was done: the line search's timer starts there (one
    // clock read fewer per Newton iteration, on several hundred islands per step).
    std::chrono::steady_clock::time_point direction_done;
  };

  // Finds participating cliques, reduced offsets and sizes all workspaces.
  void Setup(const ContactProblem& problem);
  // Islands of the problem, the Newton system over them, per-island state and tolerances.
  void SetupIslands();
  // v_c,k = J_k v for constraint k (reduced v; writes rows of v_c).
  void ConstraintVelocity(int k, const double* v, double* v_c) const;
  // out += J_k^T gamma_k (reduced).
  void AddJTransposeTimes(int k, const double* gamma, double* out) const;
  // The same over all of island i's constraints: v_c = J v (its rows of v_c), and
  // out += J^T gamma. A constraint with a BodyJacobian on a clique with body maps goes
  // through them (clique_solver.h: one O(bodies) pass per clique and a 3 x 6 product per
  // constraint instead of a dense row product over the tree's velocities), any other
  // through the two functions above.
  void IslandConstraintVelocities(int i, const double* v, double* v_c);
  void IslandAddJTransposeTimes(int i, const double* gamma, double* out);
  // out_c = A_c x_c for participating clique c (reduced).
  void MultiplyByA(int c, const double* x, double* out) const;
  // Cost, gamma, G, gradient and the norms of SAP eq. 26 of island i at v_.
  void EvalIsland(int i);
  // The right-hand side of SAP eq. 26 on one island, with the split tolerances.
  double IslandTolerance(const IslandState& s) const;
  // SAP eq. 26 on one island: ||D grad|| <= IslandTolerance.
  bool IslandOptimal(const IslandState& s) const;
  // An untouched guess meeting SAP eq. 26 with the tolerances scaled by
  // exact_guess_fraction (no min_iterations() refining step for it).
  bool GuessExact(const IslandState& s) const;
  // Solves every island, in turn or on the pool.
  void SolveIslands();
  // defer_separated: couples_ from the guess; after a round, v_c and gamma of the deferred
  // constraints at v, coupling those in contact there (true if any); the next round's
  // partition.
  void MarkCouples();
  bool EvaluateDeferred();
  void Remerge();
  // Runs island i's Newton loop to its end (convergence or failure) with scratch w.
  void SolveIsland(int i, ThreadScratch& w);
  // Evaluates island i and applies the stopping tests; true when it stopped (converged or
  // failed, recorded in its state).
  bool IslandStopped(int i);
  // One Newton update of island i; false (failure recorded in its state) if it failed.
  bool NewtonUpdate(int i, ThreadScratch& w);
  // Records a failure of island i.
  void FailIsland(int i, SapTermination t, const char* why);
  // SAP eq. 32 over all participating velocities.
  double MomentumError() const;
  // Cost, momentum error and island statistics into stats.
  void FinishStats(SapSolverStats* stats) const;
  // The islands' outcome: the lowest-numbered failure, else kOptimality if every island met
  // SAP eq. 26, else the cost criterion.
  StepStatus FinishIslands(SapSolverResult* result);
  // dv = -H^{-1} rhs on island i, H from G_. False if the factorization fails.
  bool ComputeSearchDirection(int i, const std::vector<double>& rhs, ThreadScratch& w);
  // Replaces G_ of island i's constraints that offer a prediction and writes the matching
  // right-hand side grad - J^T (gamma~ - gamma) into rhs_; false if none offers one.
  bool ApplyPredictions(int i);
  // After a step of island i that the line search cut short (v_c and dv_c of its start):
  // marks crossed_ the constraints it carried through their predicted region; true if it
  // marked one that was not marked before.
  bool MarkCrossings(int i);
  // After a step along a predicted direction of island i: marks refuted_ the predicted
  // constraints whose model's own minimum (v_c + dv_c, the full step) lies outside the
  // predicted region, and clears their crossed_.
  void RefutePredictions(int i);
  // grad^T dv on island i.
  double DirectionalDerivative(int i) const;
  // Runs the configured line search along dv_ on island i; false and a reason on failure.
  bool LineSearch(int i, double d1_0, ThreadScratch& w, double* alpha, const char** why);
  // Cost-stagnation criterion of math.md §4.3.
  bool CostStagnated(double ell, double ell_prev, double alpha_prev) const;
  // Copies the participating cliques' entries of v_guess into the reduced iterate.
  void LoadGuess(const Eigen::Ref<const Eigen::VectorXd>& v_guess);
  void WriteResult(const ContactProblem& problem, SapSolverResult* result) const;
  StepStatus Finish(SapTermination t, const char* reason, SapSolverResult* result);

  SapSolverParameters parameters_;
  const std::atomic<bool>* stop_ = nullptr;  ///< see set_stop_flag
  std::unique_ptr<ThreadPool> pool_;  // null with one thread
  const ContactProblem* problem_ = nullptr;
  NewtonSystem newton_;
  std::vector<int> reduced_offset_;  // per clique, -1 if not participating
  std::vector<int> G_offset_;        // per constraint, into G_
  int nr_ = 0;                       // reduced size
  int nc_ = 0;                       // constraint rows
  Islands islands_;                  // of the current problem
  std::vector<IslandState> island_;  // per island
  std::vector<int> schedule_;        // islands in the order they are handed out
  double island_absolute_tolerance_ = 0.0, island_relative_tolerance_ = 0.0;
  // Reduced workspaces (size nr_): iterate, free motion, gradient, A v, J^T gamma,
  // diag(A)^{-1/2}, search direction, A dv, A v*. Islands own disjoint entries.
  std::vector<double> v_, v_star_, grad_, p_, jc_, D_, dv_, A_dv_, A_v_star_;
  // Constraint-row workspaces (size nc_): J v, J dv, gamma, line-search trial v_c and gamma.
  std::vector<double> vc_, dvc_, gamma_, vc_trial_, gamma_trial_;
  // Warm start of the active set: gamma - gamma~ per constraint row (nc_) and the predicted
  // right-hand side (nr_); per constraint, whether the current direction predicts it,
  // whether a step of this solve carried it through its predicted region (cleared when its
  // model is refuted), and whether a predicted model has contradicted itself there in this
  // solve (not predicted again unless a later step crosses it).
  std::vector<double> gamma_change_, rhs_;
  std::vector<char> predicted_now_, crossed_, refuted_;
  // defer_separated: per constraint, whether it joins islands; per island, carried over
  // converged from the previous round; the previous round's partition and states.
  std::vector<char> couples_, island_done_;
  Islands prev_islands_;
  std::vector<IslandState> prev_island_;
  std::vector<int> prev_mark_;  // Remerge: per previous island, the new one it was counted in
  std::vector<MergedIsland> merged_;     // see merged_islands()
  double merged_work_velocities_ = 0.0;  // their velocities x iterations (the statistics)
  // Per clique: whether the island products use its CliqueSolver's body maps (it has one,
  // and some constraint on it has a BodyJacobian).
  std::vector<char> body_maps_;
  // Line search (AlongDirection), per constraint: ell_k, ell_k' and ell_k'' at the first
  // evaluation and its quadratic piece there; per island's range of constraint positions,
  // the constraints still evaluated after the first evaluation.
  std::vector<double> along_cost_, along_slope_, along_curvature_;
  std::vector<int> along_piece_, along_active_;
  std::vector<double> G_;               // stacked G blocks
  std::vector<int> piece_;              // per constraint: its quadratic piece at v (EvalIsland)
  std::vector<ThreadScratch> scratch_;  // per thread
};

}  // namespace csim::solver
