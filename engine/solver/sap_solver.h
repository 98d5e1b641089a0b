#pragma once
// The Semi-Analytic Primal (SAP) solver (math.md §4; SAP §IV, Algorithm 2): Newton's
// method with line search on the strongly convex cost (SAP eq. 24)
//   ell_p(v) = 1/2 ||v - v*||_A^2 + sum_k ell_k(J_k v)
//   grad     = A (v - v*) - J^T gamma            (momentum residual, SAP eq. 18)
//   H        = A + J^T G J
// over the cliques touched by constraints (the others get v = v* untouched).
//
// Stopping (math.md §4.2, §4.3), checked before each factorization, so an optimal warm start
// returns after zero iterations:
//   optimality (SAP eq. 26): ||D grad|| <= eps_a + eps_r max(||D p||, ||D j_c||),
//     D = diag(A)^{-1/2}, p = A v, j_c = J^T gamma  (Drake's scaling);
//   cost stagnation: |ell^m - ell^{m-1}| < eps_a^c + eps_r^c (|ell^m| + |ell^{m-1}|)/2 with
//     the last step alpha > 0.5.
// Failure is a status, never an exception (style.md habit 9): kNotConverged after
// max_iterations or when a line search fails; kNonFinite when a NaN/inf shows up.
//
// Memory: every workspace is a member, grown on demand and never shrunk; a solve on a
// problem no larger than a previous one does not allocate (dense Newton systems).

#include <vector>

#include <Eigen/Dense>

#include "engine/common/step_status.h"
#include "engine/solver/contact_problem.h"
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
};

/// Human-readable name of a termination reason.
const char* SapTerminationName(SapTermination t);

/// Per-solve statistics (flow to /solver/* in the output file).
struct SapSolverStats {
  SapTermination termination = SapTermination::kNoConstraints;
  int iterations = 0;              ///< Newton updates performed (factorizations)
  int line_search_iterations = 0;  ///< line-search cost evaluations, summed over iterations
  /// Dimensionless momentum error at the returned v (SAP eq. 32, math.md §5):
  /// ||D grad|| / max(||D p||, ||D j_c||), over the participating velocities (0 if both
  /// norms are 0).
  double momentum_error = 0.0;
  double cost = 0.0;               ///< ell_p at the returned v [J]
  int num_participating_cliques = 0;
  int num_participating_velocities = 0;
  double assembly_seconds = 0.0;       ///< Hessian assembly, summed [s]
  double factorization_seconds = 0.0;  ///< Cholesky factorization and solve, summed [s]
  double line_search_seconds = 0.0;    ///< line searches, summed [s]
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

  /// Solves `problem` from the initial guess v_guess (num_velocities; only the
  /// participating cliques' entries are used). Writes `result` and returns its status.
  StepStatus Solve(const ContactProblem& problem, const Eigen::Ref<const Eigen::VectorXd>& v_guess,
                   SapSolverResult* result);

 private:
  class AlongDirection;

  // Finds participating cliques, reduced offsets and sizes all workspaces.
  void Setup(const ContactProblem& problem);
  // v_c = J v for the reduced v (writes vc_).
  void CalcConstraintVelocities(const double* v, double* v_c) const;
  // out += J^T gamma (reduced).
  void AddJTransposeTimes(const double* gamma, double* out) const;
  // out = A x (reduced).
  void MultiplyByA(const double* x, double* out) const;
  // Cost, gamma, optionally G at v (reduced); fills grad, p, j_c norms.
  double EvalAt(bool with_hessian);
  // Stopping test on the current evaluation; sets the momentum error.
  bool Optimal(double* momentum_error) const;
  // Computes dv from the current G and gradient. Returns false if factorization fails.
  bool ComputeSearchDirection(SapSolverStats* stats);
  // Runs the configured line search along dv_; returns false and a reason on failure.
  bool LineSearch(double ell, SapSolverStats* stats, double* alpha, const char** why);
  // Cost-stagnation criterion of math.md §4.3.
  bool CostStagnated(double ell, double ell_prev, double alpha_prev) const;
  // Copies the participating cliques' entries of v_guess into the reduced iterate.
  void LoadGuess(const Eigen::Ref<const Eigen::VectorXd>& v_guess);
  void WriteResult(const ContactProblem& problem, SapSolverResult* result) const;
  StepStatus Finish(SapTermination t, const char* reason, SapSolverResult* result);

  SapSolverParameters parameters_;
  const ContactProblem* problem_ = nullptr;
  NewtonSystem newton_;
  std::vector<int> reduced_offset_;  // per clique, -1 if not participating
  std::vector<int> G_offset_;        // per constraint, into G_
  int nr_ = 0;                       // reduced size
  int nc_ = 0;                       // constraint rows
  // Reduced workspaces (size nr_): iterate, free motion, gradient, A v, J^T gamma,
  // diag(A)^{-1/2}, search direction, A dv, A v*.
  std::vector<double> v_, v_star_, grad_, p_, jc_, D_, dv_, A_dv_, A_v_star_;
  double ell_A_ = 0.0;               // 1/2 ||v - v*||_A^2 at the current evaluation [J]
  // Constraint-row workspaces (size nc_): J v, J dv, gamma, line-search trial v_c and gamma.
  std::vector<double> vc_, dvc_, gamma_, vc_trial_, gamma_trial_;
  std::vector<double> G_;            // stacked G blocks
  std::vector<double> G_trial_;      // one G block for the line search
};

}  // namespace csim::solver
