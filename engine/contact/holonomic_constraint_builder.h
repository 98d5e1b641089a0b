#pragma once
// The model's holonomic constraints (scene `constraints:`, multibody/holonomic_constraint.h)
// as SAP holonomic constraints of one step's contact problem
// (docs/design/actuators-and-constraints.md §4, §5, §7).
//
// Per constraint and step: the bodies' poses and Jacobians at q0 (on their trees' columns),
// g0 and J from solver/holonomic_constraint_kinematics.h, and one SapHolonomicConstraint
// on the clique of each tree involved: one clique when both sides are on one tree (a
// kinematic loop) or one side is the world, two when they are on two trees. The constraints
// thus join the same islands, Newton solve and stopping criterion as the contacts.
// A side whose motion the unknowns do not carry entirely (a prescribed joint on its path to
// the root, or a body outside every tree) contributes its known velocity as the bias b of
// g_dot = J v + b, evaluated by passing that velocity through the same linear maps as the
// Jacobian columns. A constraint between two sides that both lack velocities cannot act and
// is skipped, as is a distance constraint whose points coincide (its direction is undefined).
//
// Delassus estimate: the problem's diagonal-of-A recipe (solver::ContactProblem::FinishEntry,
// docs/design/sap-problem.md §4.1), as for joint limits and joint friction; it sets only the
// near-rigid regularization, with beta = 0.1 (SapHolonomicParameters). Rigid rows (the
// coupler, ball, weld and a distance with stiffness .inf) are near-rigid: the violation
// halves every step (docs/design/actuators-and-constraints.md §4.2).
//
// Allocation free once constructed: every scratch has the size of the largest tree.

#include <vector>

#include <Eigen/Dense>

#include "engine/multibody/model.h"
#include "engine/multibody/tree_topology.h"
#include "engine/multibody/workspace.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/sap_solver.h"

namespace csim::contact {

class HolonomicConstraintBuilder {
 public:
  HolonomicConstraintBuilder() = default;
  HolonomicConstraintBuilder(const multibody::Model& model,
                             const multibody::TreeTopology& topology);

  /// Whether the model has constraints.
  bool empty() const { return constraint_.empty(); }
  /// Total rows of the model's constraints (the width of /constraints/impulse).
  int num_rows() const { return row_offset_.back(); }

  /// Adds one SapHolonomicConstraint per model constraint that can act at (q0, v0) to
  /// `problem` (its cliques already added), with the kinematics `kin` at (t0, q0, v0).
  void Add(const multibody::Model& model, const multibody::Workspace& kin,
           const Eigen::VectorXd& q0, const Eigen::VectorXd& v0, solver::ContactProblem* problem);

  /// The constraints' impulses of the solve `result` of the last Add into *impulse
  /// (num_rows(), the model's constraints in order, their rows in HolonomicRows order): gamma
  /// [N s or N m s], 0 for a constraint skipped that step. Allocation free once *impulse has
  /// its size.
  void Report(const solver::ContactProblem& problem, const solver::SapSolverResult& result,
              Eigen::VectorXd* impulse) const;

 private:
  // One side of a distance, ball or weld constraint at q0.
  struct Side {
    int body = -1, tree = -1;              ///< -1: the world / no velocities
    Eigen::Matrix3d R_WF = Eigen::Matrix3d::Identity();  ///< frame P (or Q) in the world
    Eigen::Vector3d p_WF = Eigen::Vector3d::Zero();      ///< its origin, world [m]
    bool known = false;                    ///< has a known velocity (see the top)
    Eigen::Vector3d w_known = Eigen::Vector3d::Zero();   ///< known angular velocity [rad/s]
    Eigen::Vector3d v_known = Eigen::Vector3d::Zero();   ///< known velocity at p_WF [m/s]
  };
  Side MakeSide(const multibody::Model& model, const multibody::Workspace& kin,
                const Eigen::VectorXd& v0, int body, const math::RigidTransform& X_BF,
                Eigen::Ref<Eigen::MatrixXd> Jw, Eigen::Ref<Eigen::MatrixXd> Jv) const;
  void AddCoupler(const multibody::Model& model, const multibody::HolonomicConstraint& c,
                  const Eigen::VectorXd& q0, solver::ContactProblem* problem) const;
  // Distance, ball or weld: returns false when skipped.
  bool AddBodyConstraint(const multibody::Model& model, const multibody::HolonomicConstraint& c,
                         const multibody::Workspace& kin, const Eigen::VectorXd& v0,
                         solver::ContactProblem* problem);

  multibody::TreeTopology topology_;  ///< a copy: the builder may be moved
  /// Per model constraint: its first output row (multibody::HolonomicRowOffsets; the last
  /// entry the total).
  std::vector<int> row_offset_;
  std::vector<int> constraint_;      ///< per model constraint: its index in the last Add, -1
  std::vector<char> moved_by_prescribed_;  ///< per body: a prescribed joint on its path
  // (3, max tree nv) Jacobians of side A and B on their trees' columns, world axes.
  Eigen::MatrixXd Jw_a_, Jv_a_, Jw_b_, Jv_b_, zero_;
  Eigen::MatrixXd bias_;             ///< (6, 1) scratch: b of the step's constraint
};

}  // namespace csim::contact
