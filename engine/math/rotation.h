#pragma once
// Rotations. Quaternions are stored as Eigen::Vector4d in the scene and output order
// (w, x, y, z), so that q vectors can be written straight into /state/q.

#include <Eigen/Dense>

namespace csim::math {

using Vector4 = Eigen::Vector4d;

/// Rotation matrix R = Rz(yaw) * Ry(pitch) * Rx(roll) (scene-format.md "Poses").
Eigen::Matrix3d RotationFromRpy(const Eigen::Vector3d& rpy);

/// Rotation matrix of a quaternion (w, x, y, z); q is normalised first (need not be unit).
Eigen::Matrix3d RotationFromQuaternion(const Vector4& q_wxyz);

/// Unit quaternion (w, x, y, z) with w >= 0 of a rotation matrix.
Vector4 QuaternionFromRotation(const Eigen::Matrix3d& R);

/// Rotation by `angle` [rad] about the unit axis `axis`.
Eigen::Matrix3d RotationAboutAxis(const Eigen::Vector3d& axis, double angle);

/// Skew-symmetric matrix [a]x with [a]x b = a x b. Inline: MotionTransformToChild, once
/// per body and step, builds one.
inline Eigen::Matrix3d Skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d S;
  S << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return S;
}

/// 4x4 matrix of left multiplication by the pure quaternion (0, w): (0,w) (x) q = OmegaLeft(w) q.
/// q_dot = 1/2 OmegaLeft(w_world) q for an angular velocity in the parent (world) frame.
Eigen::Matrix4d OmegaLeft(const Eigen::Vector3d& w);

/// 4x4 matrix of right multiplication: q (x) (0, w) = OmegaRight(w) q.
/// q_dot = 1/2 OmegaRight(w_child) q for an angular velocity in the child frame.
Eigen::Matrix4d OmegaRight(const Eigen::Vector3d& w);

}  // namespace csim::math
