#pragma once
// The data of one SAP solve (sap_solver.h): the problem in reduced coordinates (the
// participating cliques only, docs/design/sap-solver.md §1), the Newton iterate and everything
// derived from it, the islands with their Newton states, and one scratch per thread.
//
// Islands own disjoint entries of every reduced and constraint-row vector, so the islands'
// Newton loops (sap_newton.h) may write them concurrently.
//
// Memory: every vector is grown on demand and never shrunk; a solve on a problem no larger
// than a previous one does not allocate, with any number of threads.

#include <chrono>
#include <vector>

#include <Eigen/Dense>

#include "engine/solver/contact_problem.h"
#include "engine/solver/islands.h"
#include "engine/solver/newton_system.h"
#include "engine/solver/newton_trace.h"
#include "engine/solver/sap_cost_along_direction.h"
#include "engine/solver/sap_island_state.h"
#include "engine/solver/sap_solver_parameters.h"
#include "engine/solver/sap_stopping_criteria.h"

namespace csim::solver {

/// Scratch of one thread: islands solved at the same time use different ones.
struct SapThreadScratch {
  std::vector<double> G_trial;   ///< one G block (the line search, the deferral test)
  NewtonSystem::Scratch newton;  ///< assembly and dense-solve scratch
  /// When the last search direction was done: the line search's timer starts there (one
  /// clock read fewer per Newton iteration).
  std::chrono::steady_clock::time_point direction_done;
};

struct SapWorkspace {
  const ContactProblem* problem = nullptr;
  /// Whether the Newton iterations read the clock around assembly, factorization and line
  /// search (SapSolver::set_time_phases); off, their times in the statistics stay 0.
  bool time_phases = false;
  /// Where the Newton iterations record their history (newton_trace.h) in a traced solve
  /// (SapSolver::set_trace); null otherwise.
  NewtonTrace* trace = nullptr;
  // Reduced coordinates: the participating cliques stacked in problem order.
  std::vector<int> reduced_offset;  ///< per clique, -1 if not participating
  int num_reduced = 0;              ///< reduced size
  /// Per clique: whether the island products use its CliqueSolver's body maps (it has one,
  /// and some constraint on it has a BodyJacobian).
  std::vector<char> body_maps;
  /// Reduced vectors (num_reduced): iterate, free motion, gradient, A v, J^T gamma,
  /// diag(A)^{-1/2}, search direction, A dv, A v*.
  std::vector<double> v, v_star, grad, p, jc, D, dv, A_dv, A_v_star;
  // Constraint rows.
  int num_rows = 0;              ///< constraint rows
  std::vector<int> G_offset;     ///< per constraint, into G
  /// Constraint-row vectors (num_rows): J v, J dv, gamma, line-search trial v_c and gamma.
  std::vector<double> vc, dvc, gamma, vc_trial, gamma_trial;
  std::vector<double> G;         ///< stacked G blocks
  std::vector<int> piece;        ///< per constraint: its quadratic piece at v (Constraint::Calc)
  /// Per clique: its first row among the cliques some constraint acts on, -1 on the others
  /// (the direct routes of step_sensitivity.h, which set up no islands: the residual's
  /// touched cliques, the small problem's dense H).
  std::vector<int> clique_position;
  // Islands of the current partition.
  Islands islands;
  std::vector<SapIslandState> island;  ///< per island
  IslandTolerances tolerances;         ///< what each island is held to
  NewtonSystem newton;                 ///< H = A + J^T G J over the islands
  CostAlongDirectionMemo along;        ///< the line search's per-constraint memo
  std::vector<SapThreadScratch> scratch;  ///< per thread
};

/// Finds the participating cliques of `problem`, their reduced offsets, v*, A v* and the
/// scaling D = diag(A)^{-1/2} (docs/design/sap-solver.md §2.1), and sizes every vector, and a
/// scratch for each of num_threads threads, so that no thread allocates during the solve.
void SetupSapWorkspace(const ContactProblem& problem, int num_threads, SapWorkspace* ws);

/// Partitions the problem into islands (FindIslands with `couples`, which may be null), sets
/// up the Newton system over them, fresh island states and their tolerances.
void SetupIslands(const SapSolverParameters& parameters, const std::vector<char>* couples,
                  SapWorkspace* ws);

/// Copies the participating cliques' entries of v_guess into the reduced iterate.
void LoadGuess(const Eigen::Ref<const Eigen::VectorXd>& v_guess, SapWorkspace* ws);

}  // namespace csim::solver
