#include "engine/math/spatial.h"

#include "engine/math/rotation.h"

namespace csim::math {

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
