#pragma once
// Spatial (6D) algebra in Featherstone's convention, "Rigid Body Dynamics Algorithms"
// (2008), ch. 2. Motion vectors are [angular; linear] = [w; v_O] with v_O the velocity of
// the material point at the frame origin; force vectors are [moment about O; force].
//
// Transforms are 6 x 6 matrices here, for clarity; the per-body loops of the dynamics use the
// structured forms of rigid_body_inertia.h (MotionToChild, ForceToParent, InertiaToParent),
// which give the same results for a fraction of the arithmetic.

#include <Eigen/Dense>

#include "engine/math/rotation.h"

namespace csim::math {

using Vector6 = Eigen::Matrix<double, 6, 1>;
using Matrix6 = Eigen::Matrix<double, 6, 6>;

/// A rigid transform X_AB: the pose of frame B measured in frame A.
/// p_AB = R_AB p_B + p_AoBo maps coordinates of a point from B to A.
struct RigidTransform {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();  ///< R_AB, orientation of B in A
  Eigen::Vector3d p = Eigen::Vector3d::Zero();      ///< p_AoBo, origin of B in A [m]

  static RigidTransform Identity() { return {}; }
  /// X_AC = X_AB * X_BC.
  RigidTransform operator*(const RigidTransform& X_BC) const {
    return {R * X_BC.R, R * X_BC.p + p};
  }
  /// p_A = X_AB * p_B.
  Eigen::Vector3d operator*(const Eigen::Vector3d& p_B) const { return R * p_B + p; }
  RigidTransform Inverse() const { return {R.transpose(), -R.transpose() * p}; }
};

/// Plucker motion transform that maps motion vectors from A coordinates to B coordinates,
/// given X_AB (B's pose in A). Its transpose maps force vectors from B to A.
inline Matrix6 MotionTransformToChild(const RigidTransform& X_AB);

/// Maps a motion vector from B coordinates to A coordinates given X_AB.
inline Vector6 MotionToParent(const RigidTransform& X_AB, const Vector6& m_B);

/// Spatial cross product for motion vectors: crm(v) m.
Vector6 CrossMotion(const Vector6& v, const Vector6& m);

/// Spatial cross product for force vectors: crf(v) f = -crm(v)^T f.
Vector6 CrossForce(const Vector6& v, const Vector6& f);

/// 6x6 spatial inertia about the frame origin of a body with mass m [kg], centre of mass
/// c [m] and rotational inertia I_c [kg m^2] about the centre of mass, all in that frame.
Matrix6 SpatialInertia(double mass, const Eigen::Vector3d& com, const Eigen::Matrix3d& I_com);

// Inline (with Skew): the articulated-body solver calls MotionTransformToChild once per body
// and factorization, and the Jacobians MotionToParent once per column, and out of line the
// calls and the copies of the returned values cost more than the arithmetic.

inline Matrix6 MotionTransformToChild(const RigidTransform& X_AB) {
  // w_B = R^T w_A;  v_B = R^T (v_A - p x w_A)   (Featherstone eq. 2.24 with E = R^T, r = p)
  const Eigen::Matrix3d Rt = X_AB.R.transpose();
  Matrix6 X = Matrix6::Zero();
  X.topLeftCorner<3, 3>() = Rt;
  X.bottomRightCorner<3, 3>() = Rt;
  X.bottomLeftCorner<3, 3>() = -Rt * Skew(X_AB.p);
  return X;
}

inline Vector6 MotionToParent(const RigidTransform& X_AB, const Vector6& m_B) {
  Vector6 m_A;
  m_A.head<3>() = X_AB.R * m_B.head<3>();
  m_A.tail<3>() = X_AB.R * m_B.tail<3>() + X_AB.p.cross(m_A.head<3>());
  return m_A;
}

}  // namespace csim::math
