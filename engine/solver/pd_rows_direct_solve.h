#pragma once
// A direct solve for a problem whose only constraints are PD actuator rows
// (docs/design/actuators-and-constraints.md §2, §7): the fast path of SapSolver::Solve for a
// robot arm whose servos are its step's only constraints.
//
// Every such row is v_c = v_j on one coordinate, a clamped row (clamped_impulse_row.h) with
// three quadratic pieces. On a fixed assignment of pieces the cost (SAP eq. 24) is one
// quadratic, and its minimiser solves, clique by clique,
//   (A_c + sum_{inside} G_k e_jk e_jk^T) v_c = A_c v*_c + sum_{inside} G_k v_hat_k e_jk
//                                                      + sum_{saturated} gamma_k e_jk
// with G_k = 1/R_k and gamma_k = +-dt e_k the bound of a saturated row: A + J^T G J is A
// plus a diagonal on the actuated coordinates, and J^T gamma a scatter. The pieces are
// taken at the solver's guess (the warm start); if every row is on its assumed piece at the
// solution v, the gradient of the cost is zero there (the pieces are closed and the gradient
// continuous), so v is SAP's unique minimiser, the one Newton's method converges to. The
// solution is accepted only then, and only when it meets SAP eq. 26 with the solver's
// tolerances (momentum error, certified as for the Newton solve); else the caller runs the
// full solve.
// Why not in the Newton loop: for seven rows on a seven-dof arm, setting up the islands, the
// Newton-system supports and the generic per-constraint products costs more than the
// factorization itself; here one dense Cholesky of each touched clique's block is the work.
// Rejected: the unconstrained (all-inside) minimiser alone, which misses every step where a
// servo holds its effort limit.
//
// Memory: the scratch grows to the largest problem and is kept; no allocation afterwards.

#include <vector>

#include <Eigen/Dense>

#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::solver {

struct SapSolverResult;  // sap_solver.h, which holds a PdRowsDirectScratch

/// Scratch of SolvePdRowsDirectly.
struct PdRowsDirectScratch {
  std::vector<int> H_offset;   ///< per clique: offset of its block in H, -1 if untouched
  std::vector<int> touched;    ///< the touched cliques, in problem order
  std::vector<double> H;       ///< the touched cliques' Newton blocks (column-major), factored
  std::vector<double> x;       ///< per velocity: right-hand side, then v
  std::vector<double> Av;      ///< per velocity: A v, then scratch
  std::vector<double> A_v_star;  ///< per velocity: A v*
  std::vector<double> jc;      ///< per velocity: J^T gamma
  std::vector<int> piece;      ///< per constraint: the assumed piece (ClampedRowPiece)
};

/// Whether every constraint of `problem` is an implicit PD row (SapPdConstraint with c > 0)
/// on a clique whose A block is stored: the problems SolvePdRowsDirectly handles.
bool IsPdRowsProblem(const ContactProblem& problem);

/// Tries the direct solve of `problem` (IsPdRowsProblem) with the pieces at v_guess
/// (num_velocities). On success writes `result` as SapSolver::Solve would (v, gamma, v_c,
/// status kOk, stats: one Newton update per touched clique, each clique its own island, the
/// cost and momentum error at v) and returns true; returns false, `result` unspecified,
/// when some row ends off its assumed piece or SAP eq. 26 fails. Does not allocate once the
/// scratch has grown.
bool SolvePdRowsDirectly(const ContactProblem& problem, const SapSolverParameters& parameters,
                         const Eigen::Ref<const Eigen::VectorXd>& v_guess,
                         PdRowsDirectScratch* scratch, SapSolverResult* result);

}  // namespace csim::solver
