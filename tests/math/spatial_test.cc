// engine/math/spatial.h against the mechanics it encodes, each written out here: rigid
// transforms act on points; a motion vector [w; v_O] is the velocity field v(p) = v_O +
// w x (p - O) of a rigid body, and a force vector [n_O; f] is a force f with moment n_O
// about O; the power v . f does not depend on the frame either is written in; the motion
// cross product is the commutator of the 4x4 twist matrices [[w]x, v; 0, 0] and the force
// cross product its dual; a spatial inertia gives the momentum and the kinetic energy of
// the mass distribution it describes (linear momentum m v_com, angular momentum about O,
// 1/2 m |v_com|^2 + 1/2 w . I_com w) and transforms as a quadratic form.

#include <catch2/catch.hpp>


#include "engine/math/rotation.h"
#include "engine/math/spatial.h"
#include "tests/support/random_spatial.h"

namespace csim::math {
namespace {

using Eigen::Matrix3d;
using Eigen::Matrix4d;
using Eigen::Vector3d;

// The tests' random draws (seed 1128).
struct Random : test::RandomSpatial {
  Random() : RandomSpatial(1128) {}
};

// Velocity at point p (coordinates of the frame the motion vector is written in).
Vector3d PointVelocity(const Vector6& m, const Vector3d& p) {
  return m.tail<3>() + m.head<3>().cross(p);
}

// The 4x4 matrix of a twist [w; v]: d/dt of homogeneous coordinates of body points.
Matrix4d Twist(const Vector6& m) {
  Matrix4d T = Matrix4d::Zero();
  T.topLeftCorner<3, 3>() = Skew(m.head<3>());
  T.topRightCorner<3, 1>() = m.tail<3>();
  return T;
}

Vector6 FromTwist(const Matrix4d& T) {
  Vector6 m;
  m << T(2, 1), T(0, 2), T(1, 0), T.topRightCorner<3, 1>();
  return m;
}

TEST_CASE("math spatial: RigidTransform maps points, composes and inverts as poses do",
          "[math][spatial]") {
  Random random;
  for (int trial = 0; trial < 20; ++trial) {
    const RigidTransform X_AB = random.Transform(), X_BC = random.Transform();
    const Vector3d p_C = random.Vector(1.0);
    const Vector3d p_B = X_BC * p_C;
    CHECK((p_B - (X_BC.R * p_C + X_BC.p)).norm() < 1e-15);
    CHECK(((X_AB * X_BC) * p_C - X_AB * p_B).norm() < 1e-14);
    // The origin of B is at p in A.
    CHECK((X_AB * Vector3d::Zero() - X_AB.p).norm() == 0.0);
    // Inverse: back to the same point, and X X^-1 is the identity.
    CHECK((X_AB.Inverse() * (X_AB * p_B) - p_B).norm() < 1e-14);
    const RigidTransform I = X_AB * X_AB.Inverse();
    CHECK((I.R - Matrix3d::Identity()).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(I.p.norm() < 1e-14);
    // Distances are kept.
    const Vector3d q_B = random.Vector(1.0);
    CHECK((X_AB * p_B - X_AB * q_B).norm() == Approx((p_B - q_B).norm()).epsilon(1e-14));
  }
}

TEST_CASE("math spatial: the motion transforms re-express a rigid body's velocity field in "
          "another frame", "[math][spatial]") {
  Random random;
  for (int trial = 0; trial < 20; ++trial) {
    const RigidTransform X_AB = random.Transform();
    const Vector6 m_A = random.Spatial(2.0);  // [w; velocity of the point at A's origin], A axes
    const Vector6 m_B = MotionTransformToChild(X_AB) * m_A;
    // The same field in B: w in B axes, and the velocity of the point at B's origin (at
    // X_AB.p in A) in B axes.
    CHECK((m_B.head<3>() - X_AB.R.transpose() * m_A.head<3>()).norm() < 1e-14);
    CHECK((m_B.tail<3>() - X_AB.R.transpose() * PointVelocity(m_A, X_AB.p)).norm() < 1e-14);
    // Any body point: its velocity from either vector agrees.
    const Vector3d p_B = random.Vector(1.0);
    CHECK((X_AB.R * PointVelocity(m_B, p_B) - PointVelocity(m_A, X_AB * p_B)).norm() < 1e-13);
    // MotionToParent is the inverse map.
    CHECK((MotionToParent(X_AB, m_B) - m_A).norm() < 1e-13);
    CHECK((MotionTransformToChild(X_AB.Inverse()) - MotionTransformToChild(X_AB).inverse())
              .cwiseAbs().maxCoeff() < 1e-12);
    // Composition: A -> C is A -> B then B -> C.
    const RigidTransform X_BC = random.Transform();
    CHECK((MotionTransformToChild(X_AB * X_BC) -
           MotionTransformToChild(X_BC) * MotionTransformToChild(X_AB))
              .cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("math spatial: the transposed motion transform moves forces to the parent, and "
          "power is the same in every frame", "[math][spatial]") {
  Random random;
  for (int trial = 0; trial < 20; ++trial) {
    const RigidTransform X_AB = random.Transform();
    const Matrix6 X = MotionTransformToChild(X_AB);
    const Vector6 f_B = random.Spatial(3.0);  // [moment about B's origin; force], B axes
    const Vector6 f_A = X.transpose() * f_B;
    // The same force in A: its moment about A's origin picks up p x f.
    const Vector3d force_A = X_AB.R * f_B.tail<3>();
    CHECK((f_A.tail<3>() - force_A).norm() < 1e-14);
    CHECK((f_A.head<3>() - (X_AB.R * f_B.head<3>() + X_AB.p.cross(force_A))).norm() < 1e-13);
    // Power: v . f evaluated in A equals v . f in B.
    const Vector6 m_A = random.Spatial(2.0);
    CHECK((X * m_A).dot(f_B) == Approx(m_A.dot(f_A)).epsilon(1e-13));
  }
}

TEST_CASE("math spatial: CrossMotion is the twists' commutator, CrossForce its dual, and both "
          "turn with the frame", "[math][spatial]") {
  Random random;
  for (int trial = 0; trial < 20; ++trial) {
    const Vector6 v = random.Spatial(2.0), m = random.Spatial(2.0), f = random.Spatial(2.0);
    const Matrix4d commutator = Twist(v) * Twist(m) - Twist(m) * Twist(v);
    CHECK((CrossMotion(v, m) - FromTwist(commutator)).norm() < 1e-13);
    // Duality: (v x m) . f = -m . (v x* f), so v x* is -(v x)^T.
    CHECK(CrossMotion(v, m).dot(f) == Approx(-m.dot(CrossForce(v, f))).margin(1e-13));
    // v x v = 0, and v x* does no work against v: v . (v x* f) = 0 (gyroscopic forces).
    CHECK(CrossMotion(v, v).norm() < 1e-14);
    CHECK(std::abs(v.dot(CrossForce(v, f))) < 1e-13);
    // Frame invariance: X (v x m) = (X v) x (X m), and likewise for forces with X^-T.
    const RigidTransform X_AB = random.Transform();
    const Matrix6 X = MotionTransformToChild(X_AB);
    CHECK((X * CrossMotion(v, m) - CrossMotion(X * v, X * m)).norm() < 1e-12);
    const Matrix6 X_force = X.inverse().transpose();
    CHECK((X_force * CrossForce(v, f) - CrossForce(X * v, X_force * f)).norm() < 1e-12);
  }
}

TEST_CASE("math spatial: SpatialInertia gives the momentum and kinetic energy of its body and "
          "transforms as X^T I X", "[math][spatial]") {
  Random random;
  for (int trial = 0; trial < 20; ++trial) {
    const double m = random.Uniform(0.1, 10.0);
    const Vector3d c = random.Vector(1.0);  // centre of mass in the frame
    const Matrix3d I_c = random.BoxInertia(m);
    const Matrix6 I = SpatialInertia(m, c, I_c);
    CHECK((I - I.transpose()).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(Eigen::SelfAdjointEigenSolver<Matrix6>(I).eigenvalues().minCoeff() > 0.0);

    const Vector6 v = random.Spatial(2.0);
    const Vector3d w = v.head<3>(), v_com = PointVelocity(v, c);
    // Momentum [angular about the origin; linear]: h_O = I_c w + c x (m v_com), p = m v_com.
    const Vector6 h = I * v;
    CHECK((h.tail<3>() - m * v_com).norm() < 1e-12);
    CHECK((h.head<3>() - (I_c * w + c.cross(m * v_com))).norm() < 1e-12);
    // Kinetic energy (Koenig): translation of the centre of mass plus rotation about it.
    CHECK(0.5 * v.dot(I * v) ==
          Approx(0.5 * m * v_com.squaredNorm() + 0.5 * w.dot(I_c * w)).epsilon(1e-13));

    // The same body described in a parent frame A: mass, com X_AB c, inertia R I_c R^T.
    const RigidTransform X_AB = random.Transform();
    const Matrix6 I_A = SpatialInertia(m, X_AB * c, X_AB.R * I_c * X_AB.R.transpose());
    const Matrix6 X = MotionTransformToChild(X_AB);
    CHECK((I_A - X.transpose() * I * X).cwiseAbs().maxCoeff() < 1e-11 * I_A.norm());
  }
}

}  // namespace
}  // namespace csim::math
