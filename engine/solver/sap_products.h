#pragma once
// The products of SAP's Newton iteration in reduced coordinates (sap_workspace.h): constraint
// velocities J v, generalized impulses J^T gamma, and A x. A constraint with a BodyJacobian on
// a clique with body maps goes through them in the island products (clique_solver.h: one
// O(bodies) pass per clique and a 3 x 6 product per constraint instead of a dense row
// product over the tree's velocities), a point contact through its factored Jacobian
// (PointContactJacobian), any other through its dense blocks.

#include <Eigen/Dense>

#include "engine/solver/sap_workspace.h"

namespace csim::solver {

/// v_c,k = J_k v for constraint k (v reduced; writes constraint k's rows of v_c).
void ConstraintVelocity(const SapWorkspace& ws, int k, const double* v, double* v_c);

/// out += J_k^T gamma_k (out reduced; gamma holds every constraint's rows).
void AddJTransposeTimes(const SapWorkspace& ws, int k, const double* gamma, double* out);

/// The same over all of island i's constraints: v_c = J v (its rows of v_c).
void IslandConstraintVelocities(const SapWorkspace& ws, int i, const double* v, double* v_c);

/// out += J^T gamma over island i's constraints.
void IslandAddJTransposeTimes(const SapWorkspace& ws, int i, const double* gamma, double* out);

/// out_c = A_c x_c for participating clique c (reduced). Inline: called per clique per
/// evaluation and line search.
inline void MultiplyByA(const SapWorkspace& ws, int c, const double* x, double* out) {
  const ContactProblem& problem = *ws.problem;
  const int o = ws.reduced_offset[c], m = problem.clique_size(c);
  if (CliqueSolver* solver = problem.clique_solver(c)) {  // a tree: O(bodies), not O(m^2)
    solver->MultiplyA(x + o, out + o);
    return;
  }
  if (m == 6) {  // a free body: fixed size, unrolled
    Eigen::Map<Eigen::Matrix<double, 6, 1>>(out + o).noalias() =
        Eigen::Map<const Eigen::Matrix<double, 6, 6>>(problem.A(c).data()) *
        Eigen::Map<const Eigen::Matrix<double, 6, 1>>(x + o);
    return;
  }
  Eigen::Map<Eigen::VectorXd>(out + o, m).noalias() =
      problem.A(c) * Eigen::Map<const Eigen::VectorXd>(x + o, m);
}

}  // namespace csim::solver
