// engine/math/rigid_body_inertia.h against the 6 x 6 algebra of spatial.h (itself checked
// against the mechanics in spatial_test.cc) and against the mechanics directly: a transform
// changes the coordinates of a motion, of a force and of an inertia, never the power f . v
// nor the kinetic energy 1/2 v . I v; the composite of two bodies is their sum.

#include <catch2/catch.hpp>


#include "engine/math/rigid_body_inertia.h"
#include "engine/math/rotation.h"
#include "engine/math/spatial.h"
#include "tests/support/random_spatial.h"

namespace csim::math {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

struct Random : test::RandomSpatial {
  Random() : RandomSpatial(2026) {}
  RigidBodyInertia Body() {
    const double m = Uniform(0.2, 5.0);
    return RigidBodyInertia::FromMassProperties(m, Vector(0.5), BoxInertia(m));
  }
};

// Scale of an inertia's entries, for relative tolerances.
double Scale(const Matrix6& I) { return I.cwiseAbs().maxCoeff(); }

TEST_CASE("math rigid body inertia: the ten numbers are SpatialInertia's matrix", "[math]") {
  Random r;
  for (int trial = 0; trial < 20; ++trial) {
    const double m = r.Uniform(0.2, 5.0);
    const Vector3d c = r.Vector(0.5);
    const Matrix3d I_c = r.BoxInertia(m);
    const RigidBodyInertia I = RigidBodyInertia::FromMassProperties(m, c, I_c);
    const Matrix6 reference = SpatialInertia(m, c, I_c);
    CHECK((I.ToMatrix() - reference).norm() <= 1e-14 * Scale(reference));
    const Vector6 v = r.Spatial(2.0);
    CHECK((I * v - reference * v).norm() <= 1e-14 * Scale(reference) * v.norm());
  }
}

TEST_CASE("math rigid body inertia: InertiaToParent is X^T I X and keeps the kinetic energy",
          "[math]") {
  Random r;
  for (int trial = 0; trial < 20; ++trial) {
    const RigidTransform X_PB = r.Transform();
    const RigidBodyInertia I_B = r.Body();
    const Matrix6 X = MotionTransformToChild(X_PB);
    const Matrix6 reference = X.transpose() * I_B.ToMatrix() * X;
    const RigidBodyInertia I_P = InertiaToParent(X_PB, I_B);
    CHECK((I_P.ToMatrix() - reference).norm() <= 1e-13 * Scale(reference));
    // The same motion seen from either frame has the same kinetic energy.
    const Vector6 V_P = r.Spatial(2.0);
    const Vector6 V_B = MotionToChild(X_PB, V_P);
    const double T_B = 0.5 * V_B.dot(I_B * V_B), T_P = 0.5 * V_P.dot(I_P * V_P);
    CHECK(std::abs(T_P - T_B) <= 1e-13 * T_B);
  }
}

TEST_CASE("math rigid body inertia: the composite of two bodies is the sum of their inertias",
          "[math]") {
  // Two point masses: the composite's mass, centre of mass and rotational inertia by hand.
  const double m1 = 2.0, m2 = 3.0;
  const Vector3d c1(0.1, -0.2, 0.3), c2(-0.4, 0.5, 0.05);
  RigidBodyInertia sum = RigidBodyInertia::FromMassProperties(m1, c1, Matrix3d::Zero());
  sum += RigidBodyInertia::FromMassProperties(m2, c2, Matrix3d::Zero());
  CHECK(sum.mass == m1 + m2);
  CHECK((sum.h - (m1 * c1 + m2 * c2)).norm() <= 1e-15);
  const Matrix3d I_O = m1 * (c1.squaredNorm() * Matrix3d::Identity() - c1 * c1.transpose()) +
                       m2 * (c2.squaredNorm() * Matrix3d::Identity() - c2 * c2.transpose());
  CHECK((sum.I_O - I_O).norm() <= 1e-15);
}

TEST_CASE("math rigid body inertia: MotionToChild and ForceToParent are the 6 x 6 transforms "
          "and keep the power",
          "[math]") {
  Random r;
  for (int trial = 0; trial < 20; ++trial) {
    const RigidTransform X_PB = r.Transform();
    const Matrix6 X = MotionTransformToChild(X_PB);
    const Vector6 m_P = r.Spatial(2.0), f_B = r.Spatial(3.0);
    const Vector6 m_B = MotionToChild(X_PB, m_P), f_P = ForceToParent(X_PB, f_B);
    CHECK((m_B - X * m_P).norm() <= 1e-14 * m_P.norm() * 3);
    CHECK((f_P - X.transpose() * f_B).norm() <= 1e-14 * f_B.norm() * 3);
    // Power is frame independent: f_P . m_P = f_B . m_B.
    CHECK(std::abs(f_P.dot(m_P) - f_B.dot(m_B)) <= 1e-13 * f_B.norm() * m_P.norm());
    // MotionToParent (spatial.h) inverts MotionToChild.
    CHECK((MotionToParent(X_PB, m_B) - m_P).norm() <= 1e-14 * m_P.norm() * 3);
  }
}

}  // namespace
}  // namespace csim::math
