#include "engine/math/rotation.h"

#include <cmath>

namespace csim::math {

Eigen::Matrix3d RotationFromRpy(const Eigen::Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

Eigen::Matrix3d RotationFromQuaternion(const Vector4& q) {
  const Eigen::Quaterniond quat(q[0], q[1], q[2], q[3]);
  return quat.normalized().toRotationMatrix();
}

Vector4 QuaternionFromRotation(const Eigen::Matrix3d& R) {
  Eigen::Quaterniond quat(R);
  quat.normalize();
  Vector4 q(quat.w(), quat.x(), quat.y(), quat.z());
  return q[0] < 0 ? Vector4(-q) : q;
}

Eigen::Matrix3d RotationAboutAxis(const Eigen::Vector3d& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis).toRotationMatrix();
}

Eigen::Matrix4d OmegaLeft(const Eigen::Vector3d& w) {
  // (0, w) (x) (q0, qv) = (-w.qv, q0 w + w x qv)
  Eigen::Matrix4d O;
  O << 0, -w.x(), -w.y(), -w.z(),
       w.x(), 0, -w.z(), w.y(),
       w.y(), w.z(), 0, -w.x(),
       w.z(), -w.y(), w.x(), 0;
  return O;
}

Eigen::Matrix4d OmegaRight(const Eigen::Vector3d& w) {
  // (q0, qv) (x) (0, w) = (-qv.w, q0 w + qv x w)
  Eigen::Matrix4d O;
  O << 0, -w.x(), -w.y(), -w.z(),
       w.x(), 0, w.z(), -w.y(),
       w.y(), -w.z(), 0, w.x(),
       w.z(), w.y(), -w.x(), 0;
  return O;
}

}  // namespace csim::math
