#pragma once
// The spatial inertia of a rigid body (or of a rigid assembly: a sum of them, such as the
// composite inertia of a subtree) in its ten numbers instead of a 6 x 6 matrix: mass m, first
// moment h = m c and rotational inertia I_O about the frame's origin, all in the frame's
// coordinates. As a matrix (Featherstone, "Rigid Body Dynamics Algorithms", eq. 2.63),
//
//   I = [ I_O   [h]x ]
//       [ -[h]x  m 1 ]
//
// Why: the per-body loops of the mass matrix and of inverse dynamics multiply inertias by
// motion vectors and carry them to the parent, and with the structure those cost a quarter
// of the 6 x 6 arithmetic (results/robots_bench.md measures the steps they serve).

#include <Eigen/Dense>

#include "engine/math/spatial.h"

namespace csim::math {

struct RigidBodyInertia {
  double mass = 0.0;                                  ///< m [kg]
  Eigen::Vector3d h = Eigen::Vector3d::Zero();        ///< first moment m c [kg m]
  Eigen::Matrix3d I_O = Eigen::Matrix3d::Zero();      ///< about the origin [kg m^2]

  /// A body of mass m [kg] with centre of mass c [m] and rotational inertia I_com about it
  /// [kg m^2], in the same frame.
  static RigidBodyInertia FromMassProperties(double m, const Eigen::Vector3d& c,
                                             const Eigen::Matrix3d& I_com) {
    RigidBodyInertia I;
    I.mass = m;
    I.h = m * c;
    // Parallel axis: I_O = I_com + m ([c]x [c]x^T) = I_com + m (|c|^2 1 - c c^T).
    I.I_O = I_com + m * (c.squaredNorm() * Eigen::Matrix3d::Identity() - c * c.transpose());
    return I;
  }

  /// The 6 x 6 matrix above.
  Matrix6 ToMatrix() const {
    Matrix6 I;
    const Eigen::Matrix3d H = Skew(h);
    I.topLeftCorner<3, 3>() = I_O;
    I.topRightCorner<3, 3>() = H;
    I.bottomLeftCorner<3, 3>() = -H;
    I.bottomRightCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
    return I;
  }

  /// The momentum I m of the body moving with the motion vector m = [w; v_O].
  Vector6 operator*(const Vector6& m) const {
    const auto w = m.head<3>(), v = m.tail<3>();
    Vector6 f;
    f.head<3>().noalias() = I_O * w;
    f.head<3>() += h.cross(v);
    f.tail<3>() = mass * v - h.cross(w);
    return f;
  }

  RigidBodyInertia& operator+=(const RigidBodyInertia& other) {
    mass += other.mass;
    h += other.h;
    I_O += other.I_O;
    return *this;
  }
};

/// The inertia I_B of a body, given in the coordinates of frame B, in those of its parent P,
/// given X_PB (B's pose in P): X^T I_B X with X the motion transform from P to B. With
/// a = R h: h_P = a + m p, I_O,P = R I_O R^T + m (|p|^2 1 - p p^T) + 2 (p.a) 1 - (a p^T +
/// p a^T), the parallel-axis terms of the mass moved by p.
inline RigidBodyInertia InertiaToParent(const RigidTransform& X_PB, const RigidBodyInertia& I_B) {
  const Eigen::Matrix3d& R = X_PB.R;
  const Eigen::Vector3d& p = X_PB.p;
  const Eigen::Vector3d a = R * I_B.h;
  RigidBodyInertia I_P;
  I_P.mass = I_B.mass;
  I_P.h = a + I_B.mass * p;
  const Eigen::Matrix3d RI = R * I_B.I_O;
  I_P.I_O.noalias() = RI * R.transpose();
  const double diagonal = I_B.mass * p.squaredNorm() + 2.0 * p.dot(a);
  const Eigen::Vector3d mp_plus_a = I_B.mass * p + a;
  // m (|p|^2 1 - p p^T) - (a p^T + p a^T) = diagonal' 1 - (m p + a) p^T - p a^T.
  I_P.I_O.noalias() -= mp_plus_a * p.transpose();
  I_P.I_O.noalias() -= p * a.transpose();
  I_P.I_O.diagonal().array() += diagonal;
  return I_P;
}

/// Xup m_P: the motion vector m_P, in the parent's coordinates, in the child's, given X_PB;
/// the same as MotionTransformToChild(X_PB) * m_P without forming the 6 x 6 matrix.
inline Vector6 MotionToChild(const RigidTransform& X_PB, const Vector6& m_P) {
  Vector6 m_B;
  m_B.head<3>().noalias() = X_PB.R.transpose() * m_P.head<3>();
  const Eigen::Vector3d v = m_P.tail<3>() - X_PB.p.cross(m_P.head<3>());
  m_B.tail<3>().noalias() = X_PB.R.transpose() * v;
  return m_B;
}

/// Xup^T f_B: the force vector f_B, in the child's coordinates, in the parent's, given
/// X_PB: the force rotated, and its moment moved to the parent's origin.
inline Vector6 ForceToParent(const RigidTransform& X_PB, const Vector6& f_B) {
  Vector6 f_P;
  f_P.tail<3>().noalias() = X_PB.R * f_B.tail<3>();
  f_P.head<3>().noalias() = X_PB.R * f_B.head<3>();
  f_P.head<3>() += X_PB.p.cross(f_P.tail<3>());
  return f_P;
}

}  // namespace csim::math
