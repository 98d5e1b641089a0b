#pragma once
// Constraints that act on a single generalized coordinate (joint limits, PD actuators, joint
// dry friction): every row of such a constraint is +-e_dof^T, the coordinate's unit row in
// its clique, so their Jacobian needs no kinematics and one routine writes it for all of
// them (docs/design/actuators-and-constraints.md §7).
//
// A kind opts in by exposing `double CoordinateRowSign(int r) const`: +1 when row r measures
// the coordinate's velocity, -1 when it measures its negative (a joint limit's upper row).

#include <Eigen/Dense>

#include "engine/common/check.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/delassus_estimate.h"

namespace csim::solver {

/// Writes J (constraint.num_rows() x clique size) of `constraint` on coordinate `dof` (index
/// inside its clique): row r is CoordinateRowSign(r) e_dof^T.
template <class T>
void FillCoordinateRows(const T& constraint, int dof, Eigen::Ref<Eigen::MatrixXd> J) {
  CSIM_CHECK(J.rows() == constraint.num_rows() && dof >= 0 && dof < J.cols());
  J.setZero();
  for (int r = 0; r < constraint.num_rows(); ++r) J(r, dof) = constraint.CoordinateRowSign(r);
}

/// The Delassus estimate of a constraint of num_rows rows +-e_dof^T on coordinate `dof` of
/// clique `clique` of `problem`: the diagonal-of-A recipe's value w = 1/A_jj, from the inverse
/// diagonal the clique keeps (EstimateCoordinateDelassus: bit-identical to the recipe on the
/// dense rows, without reading them).
inline double CoordinateDelassus(const ContactProblem& problem, int clique, int dof,
                                 int num_rows) {
  return EstimateCoordinateDelassus(num_rows, problem.inverse_diagonal_of_A(clique)[dof]);
}

/// Adds `constraint` on coordinate `dof` (index inside the clique) of clique `clique` to
/// `problem` (the clique's A block must already be added). Returns the pooled constraint.
/// Its Delassus estimate is CoordinateDelassus, and the entry is marked as a coordinate
/// constraint (ContactProblem::AddCoordinateRows, which writes the rows
/// FillCoordinateRows would).
template <class T>
T& AddCoordinateConstraint(ContactProblem* problem, int clique, int dof, const T& constraint) {
  CSIM_CHECK(clique >= 0 && clique < problem->num_cliques() && dof >= 0 &&
             dof < problem->clique_size(clique));
  const double w = CoordinateDelassus(*problem, clique, dof, constraint.num_rows());
  return problem->AddCoordinateRows(clique, dof, constraint, w);
}

}  // namespace csim::solver
