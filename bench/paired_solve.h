#pragma once
// Paired comparison of two solver settings on the same contact problems (csim_bench
// --compare KEY=VALUE). After every step of a run, the step's contact problem is solved
// again from the step's own warm start twice: with the run's solver settings (A) and with
// the compared ones (B), the two in alternating order so that neither always finds the
// problem's data in the caches. The run's trajectory is A's, so both settings see exactly
// the same problems.
//
// Why: a pile is chaotic. Two runs with different solver settings, each within SAP's
// tolerance, soon simulate different piles, and the Newton work of different piles
// scatters more than most solver changes gain or lose (results/paired_solver_options.md).
// On the same problems the difference is the settings' alone.
//
// A's re-solve must reproduce the step's own solve bit for bit (the solver is
// deterministic, and its workspaces carry nothing from one solve to the next that changes
// the result); the summary says whether every one did, which checks the comparison itself.

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver.h"

namespace csim::bench {

/// One side's totals over the compared problems.
struct PairedSide {
  long rounds = 0;        ///< Newton rounds (SapSolverStats::iterations), summed
  double work = 0.0;      ///< tree-iterations: each island's cliques x its iterations, summed
  double seconds = 0.0;   ///< wall time of the solves [s], summed
  int failures = 0;       ///< solves that did not succeed
  double max_momentum_error = 0.0;  ///< SAP eq. 32 of the successful solves
  std::string first_failure;        ///< the first failed solve's reason (problem number)
};

struct PairedSummary {
  int problems = 0;  ///< steps with at least one constraint, solved by both settings
  PairedSide a, b;
  /// max over problems of max_i |v_B,i - v_A,i| where both succeeded [m/s, rad/s]
  double max_velocity_difference = 0.0;
  /// Every re-solve with A returned the step's own v, status and iterations exactly.
  bool a_reproduces_steps = true;
};

/// Checks that every KEY=VALUE of `compared` changes only the contact solve: a key under
/// `settings.solver.`, other than `settings.solver.warm_start` (the warm start is the step's,
/// not the solve's). Throws std::invalid_argument naming the first offending entry.
void CheckComparedSettings(const std::vector<std::string>& compared);

class PairedSolve {
 public:
  /// `a`: the run's solver parameters; `b`: the compared ones; `threads` as the run's.
  PairedSolve(const solver::SapSolverParameters& a, const solver::SapSolverParameters& b,
              int threads);

  /// Solves `problem` from `v_guess` with A and with B (B first when `b_first`), compares
  /// A's result with `step_result` (the step's own solve) and B's with A's. Problems
  /// without constraints are skipped.
  void Compare(const solver::ContactProblem& problem, const Eigen::VectorXd& v_guess,
               const solver::SapSolverResult& step_result, bool b_first);

  const PairedSummary& summary() const { return summary_; }

 private:
  // Solves with `s` into `r`; adds to `side`. `problem_number` names a failure.
  static void SolveSide(solver::SapSolver& s, const solver::ContactProblem& problem,
                        const Eigen::VectorXd& v_guess, int problem_number,
                        solver::SapSolverResult* r, PairedSide* side);

  solver::SapSolver solver_a_, solver_b_;
  solver::SapSolverResult result_a_, result_b_;
  PairedSummary summary_;
};

}  // namespace csim::bench
