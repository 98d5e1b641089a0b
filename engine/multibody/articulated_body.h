#pragma once
// Solves (M(q) + diag(d)) x = b over a set of bodies in O(number of bodies), by the
// articulated-body recursions (Featherstone, RBDA sec. 7.3) run with zero velocity and
// zero gravity: the forward dynamics of a tree under the generalized forces b are then
// exactly x = M^-1 b. The joint-space diagonal d (the theta method's dt^2 theta theta_q K +
// dt theta D, docs/design/time-step.md §4.2) enters each joint's D_i = S_i^T I^A_i S_i + diag(d_i),
// the way rotor armature does; it is what the recursion solves, not an approximation. M
// itself holds the joints' armatures (Joint::armature) on its diagonal, as CalcMassMatrix
// forms it, so every method here adds them to D_i, M x and diag(M) too.
//
// Why: the dense Cholesky of a tree's block costs O(nv^3) and forming M by the composite
// rigid-body algorithm O(nv depth), which on long ropes makes the dense path many times
// slower (results/articulated_threshold.md), most of all under an implicit scheme, whose
// chord iterations factor at every evaluation.
// The recursion splits into Factor (articulated inertias, from the kinematics and d: once
// per evaluation of the dynamics) and Solve (two O(n) passes with 6-vectors, any number of
// right-hand sides), like a factorization. MultiplyMassMatrix and MassMatrixDiagonal give
// the iteration its products with M and its scaling without forming M at all.
//
// Frames and conventions are CalcMassMatrix's: X_PB[i] (body i's pose in its parent) carries
// motion vectors from the parent's coordinates to body i's (math::MotionToChild) and forces
// back (math::ForceToParent); I_B and S are in body coordinates.
// A joint without velocities (fixed, or prescribed: its motion is known, so it adds no
// unknown) passes its body's articulated inertia to the parent whole. A body whose parent
// is outside the set (the world, a welded or prescribed body) has a parent that does not
// accelerate with x.

#include <vector>

#include <Eigen/Dense>

#include "engine/math/spatial.h"
#include "engine/multibody/model.h"
#include "engine/multibody/workspace.h"

namespace csim::multibody {

class ArticulatedBodySolver {
 public:
  ArticulatedBodySolver() = default;
  /// For the bodies with in_set[b] true (every body of one tree, or of several, with all
  /// their descendants: the set must be closed under taking children). Sizes every buffer.
  ArticulatedBodySolver(const Model& model, const std::vector<bool>& in_set);

  /// Articulated inertias at the kinematics of ws (CalcKinematics; reads X_PB, I_B and S)
  /// with d (size nv, model order; only the set's velocities are read). Returns false when
  /// some D_i is not positive definite (then Solve must not be called). Allocation free.
  /// With added_inertia (per body, body coordinates, symmetric positive semidefinite), body
  /// b's inertia is I_B + added_inertia[b]: the solve is then with
  /// M + diag(d) + sum_b J_b^T added_inertia[b] J_b, J_b the body Jacobian (a contact's
  /// J^T G J on one body is such a term: the contact solve's Newton matrix).
  bool Factor(const Model& model, const Workspace& ws, const Eigen::VectorXd& d,
              const std::vector<math::Matrix6>* added_inertia = nullptr);

  /// x = (M + diag(d))^-1 x on the set's velocities of x (size nv); the other entries are
  /// left alone. Uses the last Factor's kinematics, which ws must still hold. Allocation free.
  void SolveInPlace(const Model& model, const Workspace& ws, Eigen::VectorXd* x);

  /// out = M x on the set's velocities (sizes nv; other entries of out left alone), at the
  /// kinematics of ws, by the recursion of inverse dynamics at zero velocity and gravity:
  /// O(bodies), where a product with the formed block costs O(nv^2) and forming it
  /// O(nv depth). x and out must not overlap. Allocation free.
  void MultiplyMassMatrix(const Model& model, const Workspace& ws, const Eigen::VectorXd& x,
                          Eigen::VectorXd* out);

  /// (*V)[b] = J_b x for every body b of the set: the spatial velocity (w; v of its origin)
  /// in b's coordinates that the set's velocities x (size nv, model order) give b, J_b its
  /// body Jacobian; a parent outside the set contributes nothing. One root-to-leaves pass,
  /// O(bodies), at the kinematics of ws (X_PB, S; no Factor needed). Why: a contact on body
  /// b of a tree has the Jacobian W J_b (contact_problem.h, BodyJacobian), and the contact
  /// solve forms J v for every contact of the tree at every Newton iteration; through V this
  /// costs O(bodies + contacts) where the dense rows cost O(contacts nv). V must hold model
  /// num_bodies() entries; the others are left alone. Allocation free.
  void BodyVelocities(const Model& model, const Workspace& ws, const double* x,
                      std::vector<math::Vector6>* V) const;

  /// out += sum_b J_b^T (*F)[b] over the set's bodies (out: size nv, model order; only the
  /// set's velocities change): the generalized forces of the spatial forces F[b] (in b's
  /// coordinates) applied to the bodies. One leaves-to-root pass, O(bodies), at the
  /// kinematics of ws. F is used as the pass's scratch: on return F[b] holds the force b's
  /// whole subtree passes through b's joint. The transpose of BodyVelocities. Allocation free.
  void AddBodyForces(const Model& model, const Workspace& ws, std::vector<math::Vector6>* F,
                     double* out) const;

  /// After Factor: for every body b of the set, (*omega)[b] = the 6 x 6 map from a spatial
  /// force applied to b to b's spatial acceleration, both in b's coordinates, in the tree
  /// with mass matrix M + diag(d): J_b (M + diag(d))^-1 J_b^T, J_b the body Jacobian. It is
  /// the inverse operational-space inertia of the body (Wensing, Featherstone and Orin,
  /// ICRA 2012), by one root-to-leaves pass over the factor: O(bodies), where forming it from
  /// the dense inverse costs O(nv^3). Why: the exact per-tree Delassus block of a contact on
  /// the body is Phi omega Phi^T (contact_problem_builder.cc). omega must hold model
  /// num_bodies() entries; the others are left alone. Allocation free.
  void InverseOperationalInertias(const Model& model, const Workspace& ws,
                                  std::vector<math::Matrix6>* omega) const;

  /// The set's entries of diag(M) into out (size nv), from the composite inertias ws.Ic
  /// (CalcMassMatrix forms them for every body, with or without the set's blocks of M).
  void MassMatrixDiagonal(const Model& model, const Workspace& ws, Eigen::VectorXd* out) const;

 private:
  using JointMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
  using ForceBlock = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
  using JointRates = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

  // a_[b] = the parent's acceleration a_[parent] in b's coordinates (zero outside the set).
  void CarryParentAcceleration(const Workspace& ws, int b);

  std::vector<int> bodies_;             // the set, ascending (parents before children)
  std::vector<int> parent_in_set_;      // per body: its parent if in the set, else -1
  std::vector<math::Matrix6> I_A_;      // articulated inertia, body coordinates
  std::vector<ForceBlock> U_;           // I_A S (6 x nv_i)
  std::vector<JointMatrix> D_inv_;      // (S^T I_A S + diag(d_i))^-1
  std::vector<math::Vector6> p_A_;      // articulated force (Solve)
  std::vector<math::Vector6> a_;        // spatial acceleration (Solve)
  std::vector<JointRates> u_;           // b_i - S^T p_A (Solve)
};

}  // namespace csim::multibody
