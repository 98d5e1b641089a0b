#pragma once
// A direct solve for a problem whose only constraints are PD actuator rows
// (docs/design/actuators-and-constraints.md §2, §7): the fast path of a step whose servos are
// its only constraints (contact::PdActuators::SolveDirectly), taken before any of them is
// added to the problem as a SapPdConstraint.
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
// factorization itself; here one dense L D L^T of each touched clique's block is the work.
// Why before the rows enter the problem: forming seven constraint objects, their entries and
// Jacobian rows cost as much again as the solve (results/robots_bench.md).
// Rejected: the unconstrained (all-inside) minimiser alone, which misses every step where a
// servo holds its effort limit.
//
// Memory: the scratch grows to the largest problem and is kept; no allocation afterwards.

#include <vector>

#include <Eigen/Dense>

#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::solver {

struct SapSolverResult;  // sap_solver.h

/// One implicit PD row of the direct solve: v_c = v_j on one coordinate, the clamped row of
/// clamped_impulse_row.h with bounds +-impulse_limit (a SapPdConstraint's after Prepare, or
/// CalcPdRow's, with c > 0).
struct PdRow {
  int clique = 0;      ///< the clique of the coordinate (its A block must be stored)
  int coordinate = 0;  ///< the coordinate's index inside the clique
  double v_hat = 0.0;  ///< [rad/s or m/s]
  double R = 1.0;      ///< [1/(kg m^2) or 1/kg] > 0, finite
  double impulse_limit = 0.0;  ///< dt e [N m s or N s] > 0, may be +inf
};

/// Scratch of SolvePdRowsDirectly, and the rows' values at the solution.
struct PdRowsDirectScratch {
  std::vector<int> H_offset;   ///< per clique: offset of its block in H, -1 if untouched
  std::vector<int> touched;    ///< the touched cliques, in problem order
  std::vector<double> H;       ///< the touched cliques' Newton blocks (column-major), factored
  std::vector<double> x;       ///< per velocity: right-hand side, then v
  std::vector<double> Av;      ///< per velocity: A v, then scratch
  std::vector<double> A_v_star;  ///< per velocity: A v*
  std::vector<double> jc;      ///< per velocity: J^T gamma
  std::vector<int> piece;      ///< per row: its piece (ClampedRowPiece), assumed then found
  std::vector<double> gamma;   ///< per row: its impulse at the solution [N m s or N s]
};

/// Tries the direct solve of `problem` (its cliques, A blocks and v*; it must hold no
/// constraint) with the `num_rows` rows at `rows` added, with the pieces at v_guess
/// (num_velocities). On success writes `result` as SapSolver::Solve would for the problem
/// with the rows (v, status kOk, stats: one Newton update per touched clique, each clique its
/// own island, the cost and momentum error at v; not gamma and v_c, which are per row of the
/// problem's own constraints) and the rows' impulses and pieces in `scratch`, and returns
/// true; returns false, `result` unspecified, when some row ends off its assumed piece or
/// SAP eq. 26 fails. Does not allocate once the scratch has grown.
bool SolvePdRowsDirectly(const ContactProblem& problem, const PdRow* rows, int num_rows,
                         const SapSolverParameters& parameters,
                         const Eigen::Ref<const Eigen::VectorXd>& v_guess,
                         PdRowsDirectScratch* scratch, SapSolverResult* result);

}  // namespace csim::solver
