#include "engine/math/spatial.h"

#include "engine/math/rotation.h"

namespace csim::math {

Matrix6 MotionTransformToChild(const RigidTransform& X_AB) {
  // w_B = R^T w_A;  v_B = R^T (v_A - p x w_A)   (Featherstone eq. 2.24 with E = R^T, r = p)
  const Eigen::Matrix3d Rt = X_AB.R.transpose();
  Matrix6 X = Matrix6::Zero();
  X.topLeftCorner<3, 3>() = Rt;
  X.bottomRightCorner<3, 3>() = Rt;
  X.bottomLeftCorner<3, 3>() = -Rt * Skew(X_AB.p);
  return X;
}

Vector6 MotionToParent(const RigidTransform& X_AB, const Vector6& m_B) {
  Vector6 m_A;
  m_A.head<3>() = X_AB.R * m_B.head<3>();
  m_A.tail<3>() = X_AB.R * m_B.tail<3>() + X_AB.p.cross(m_A.head<3>());
  return m_A;
}

Vector6 CrossMotion(const Vector6& v, const Vector6& m) {
  const Eigen::Vector3d w = v.head<3>(), vo = v.tail<3>();
  Vector6 out;
  out.head<3>() = w.cross(m.head<3>());
  out.tail<3>() = w.cross(m.tail<3>()) + vo.cross(m.head<3>());
  return out;
}

Vector6 CrossForce(const Vector6& v, const Vector6& f) {
  const Eigen::Vector3d w = v.head<3>(), vo = v.tail<3>();
  Vector6 out;
  out.head<3>() = w.cross(f.head<3>()) + vo.cross(f.tail<3>());
  out.tail<3>() = w.cross(f.tail<3>());
  return out;
}

Matrix6 SpatialInertia(double mass, const Eigen::Vector3d& com, const Eigen::Matrix3d& I_com) {
  const Eigen::Matrix3d C = Skew(com);
  Matrix6 I;
  I.topLeftCorner<3, 3>() = I_com + mass * C * C.transpose();
  I.topRightCorner<3, 3>() = mass * C;
  I.bottomLeftCorner<3, 3>() = mass * C.transpose();
  I.bottomRightCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  return I;
}

}  // namespace csim::math
