#pragma once
// Everything derived from (model, t, q, v): sized once by MakeWorkspace, refilled by the
// algorithms, never resized during a run, so the step loop does not allocate. Each field
// says its frame, shape, unit and the function that fills it.

#include <vector>

#include <Eigen/Dense>

#include "engine/math/rigid_body_inertia.h"
#include "engine/math/spatial.h"
#include "engine/multibody/block_diagonal_matrix.h"
#include "engine/multibody/joint_motion.h"
#include "engine/multibody/model.h"

namespace csim::multibody {

struct Workspace {
  // Constant per body, from the model.
  std::vector<math::RigidBodyInertia> I_B;  ///< spatial inertia about B's origin, B coords

  // CalcKinematics.
  double t = 0.0;                        ///< time the kinematics were computed at [s]
  std::vector<JointVector> q_j, v_j;     ///< each joint's coordinates (prescribed: from t)
  std::vector<JointVector> a_prescribed; ///< prescribed joint accelerations (others unused)
  std::vector<JointKinematics> joint;    ///< X_JC, S (in C), cJ per joint
  std::vector<math::RigidTransform> X_PB;///< body in parent body (or world) frame
  std::vector<math::RigidTransform> X_WB;///< body in world
  std::vector<math::Vector6> V_B;        ///< spatial velocity of B, B coords [rad/s; m/s]

  // CalcMassMatrix.
  std::vector<math::RigidBodyInertia> Ic;  ///< composite inertia of the subtree at B, B coords
  BlockDiagonalMatrix M;                 ///< (nv, nv) mass matrix, one block per tree
                                         ///< (MassMatrixBlocks) [kg, kg m, kg m^2]

  // CalcInverseDynamics / CalcBiasForces.
  std::vector<math::Vector6> A_B;        ///< spatial acceleration of B (gravity offset)
  std::vector<math::Vector6> F_B;        ///< net spatial force on the subtree at B, B coords
  Eigen::VectorXd bias;                  ///< (nv) C(q,v) v - tau_gravity [N, N m]
};

/// Sizes a workspace for `model` and fills the constant fields.
Workspace MakeWorkspace(const Model& model);

}  // namespace csim::multibody
