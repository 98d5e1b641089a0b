#pragma once
// solver::CliqueSolver (clique_solver.h) for an articulated tree in the contact solve: the
// tree's block of the Newton matrix, H_t = M + diag(d) + sum_k J_k^T G_k J_k, factored by
// the articulated-body recursions (multibody::ArticulatedBodySolver) in O(bodies) instead
// of a dense Cholesky in O(nv^3). A contact on one body b of the tree and on the world (or
// a body without velocities) has J_k = W_k B_b with B_b the body's spatial velocity in its
// own coordinates, so J_k^T G_k J_k = B_b^T (W^T G W) B_b adds W^T G W to b's inertia; a
// joint limit (J_k = s e_j^T) adds s^T G s to d_j. Why: a long rope lying on the floor
// would otherwise factor its whole dense block at every Newton iteration.
//
// The same B_b give the solver's products with J (CliqueSolver::CalcBodyVelocities,
// ApplyBodyForces): the bodies' velocities in one root-to-leaves pass, and the generalized
// force of their contact forces in one leaves-to-root pass (ArticulatedBodySolver's
// BodyVelocities, AddBodyForces), at the same kinematics as the factorization.
//
// Exact only when A's M is at the kinematics the contact Jacobians were formed at, i.e.
// the free motion's single evaluation at (q0, v0): theta = 0 (contact_problem_builder.cc
// registers it only then). Contacts between two bodies of the tree, or with another tree,
// couple what a body term cannot express; the solver then keeps the block-sparse Cholesky
// for that island (newton_system.h).

#include <vector>

#include <Eigen/Dense>

#include "engine/math/spatial.h"
#include "engine/multibody/articulated_body.h"
#include "engine/multibody/model.h"
#include "engine/multibody/tree_topology.h"
#include "engine/multibody/workspace.h"
#include "engine/solver/clique_solver.h"

namespace csim::contact {

class ArticulatedCliqueSolver final : public solver::CliqueSolver {
 public:
  /// For tree `tree` of `topology` (model must outlive this object). Sizes every buffer.
  ArticulatedCliqueSolver(const multibody::Model& model, const multibody::TreeTopology& topology,
                          int tree);
  /// The step's kinematics (the contact Jacobians' and M's) and A's diagonal terms (nv,
  /// null: none); both must outlive the solve.
  void Prepare(const multibody::Workspace* kinematics, const Eigen::VectorXd* diagonal_terms);

  void ClearTerms() override;
  /// `body` is the model's body index (a body of the tree).
  void AddBodyTerm(int body, const Eigen::Matrix<double, 6, 6>& K) override;
  void AddVelocityTerm(int j, double g) override;
  bool Factor() override;
  void Solve(double* x) override;
  void MultiplyA(const double* x, double* out) override;
  void FormA(double* out) override;
  /// diag(A_c) (nv_ values at out): diag(M) from the composite inertias of the kinematics
  /// (CalcMassMatrix forms them with or without the tree's blocks), plus A's diagonal terms.
  void ADiagonal(double* out) const;
  void CalcBodyVelocities(const double* x) override;
  const math::Vector6& body_velocity(int body) const override { return V_[body]; }
  void ClearBodyForces() override;
  void AddBodyForce(int body, const math::Vector6& F) override { F_[body] += F; }
  void ApplyBodyForces(double* out) override;
  void BodyJacobianRows(int body, const Eigen::Matrix<double, 3, 6>& W, double* J) override;

 private:
  const multibody::Model* model_;
  std::vector<int> bodies_;  // the tree's
  int v_start_ = 0, nv_ = 0;
  multibody::ArticulatedBodySolver solver_;
  const multibody::Workspace* kinematics_ = nullptr;
  const Eigen::VectorXd* diagonal_terms_ = nullptr;
  std::vector<math::Matrix6> added_inertia_;  // per model body; only the tree's are used
  Eigen::VectorXd d_;  // (nv) A's diagonal terms plus the velocity terms, tree entries only
  Eigen::VectorXd x_;  // (nv) Solve's and the body maps' scratch, tree entries only
  Eigen::VectorXd Mx_;  // (nv) MultiplyA's product, tree entries only
  mutable Eigen::VectorXd diagonal_;  // (nv) ADiagonal's diag(M), tree entries only
  Eigen::VectorXd e_;  // (nv_) FormA's unit vector
  std::vector<math::Vector6> V_, F_;  // per model body: B_b x and F_b; only the tree's used
  std::vector<math::Vector6> row_F_;  // BodyJacobianRows' forces (F_ may be accumulating)
};

}  // namespace csim::contact
