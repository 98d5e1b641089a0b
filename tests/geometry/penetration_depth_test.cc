// EPA penetration depths (engine/geometry/penetration_depth.h) against closed forms.

#include "engine/geometry/penetration_depth.h"

#include <cmath>

#include <catch2/catch.hpp>

#include "engine/geometry/contact_shape.h"
#include "tests/geometry/contact_test_shapes.h"

namespace csim::geometry {
namespace {

using namespace test;  // NOLINT
using Eigen::Vector3d;
using math::RigidTransform;

constexpr double kPi = 3.14159265358979323846;

SignedDistanceResult Penetration(const Geometry& a, const RigidTransform& X_WA, const Geometry& b,
                                 const RigidTransform& X_WB, bool expect_converged = true) {
  SignedDistanceResult r;
  double upper = 0.0;
  const bool converged =
      CalcPenetration(ContactShape(a), X_WA, ContactShape(b), X_WB, 0.1, 1e-8, &r, &upper);
  CHECK(converged == expect_converged);
  if (converged) CHECK(upper >= r.phi0);
  CHECK(r.nhat_AB_W.norm() == Approx(1.0).margin(1e-12));
  return r;
}

TEST_CASE("EPA: spheres, depth r_a + r_b - distance along the centre line", "[collision]") {
  const Vector3d d = Vector3d(1, 2, -0.5).normalized();
  const SignedDistanceResult r = Penetration(Sphere(0.1), At(0, 0, 0), Sphere(0.2), 
                                             At(0.25 * d.x(), 0.25 * d.y(), 0.25 * d.z()));
  CHECK(r.phi0 == Approx(0.25 - 0.3).margin(1e-8));
  CHECK((r.nhat_AB_W - d).norm() < 1e-3);
}

TEST_CASE("EPA: overlapping boxes, the shortest way out along a face normal", "[collision]") {
  const SignedDistanceResult r = Penetration(Box(1, 1, 1), At(0, 0, 0), Box(0.5, 0.5, 0.5),
                                             At(0.74, 0.1, -0.05));
  CHECK(r.phi0 == Approx(-0.01).margin(1e-12));
  CHECK((r.nhat_AB_W - Vector3d::UnitX()).norm() < 1e-12);
  // The contact point lies midway between the witnesses, on the overlap region's x-midplane.
  CHECK(r.p_WC.x() == Approx(0.495).margin(1e-12));
}

TEST_CASE("EPA: two crossed needles, whose supports nearly all lie in one plane",
          "[collision]") {
  // Thin boxes along x and y through the same point: out along z by their thicknesses.
  const SignedDistanceResult r = Penetration(Box(0.2, 0.004, 0.006), At(0, 0, 0),
                                             Box(0.003, 0.2, 0.002), At(0, 0, 0.001));
  CHECK(r.phi0 == Approx(-0.003).margin(1e-12));
  CHECK((r.nhat_AB_W - Vector3d::UnitZ()).norm() < 1e-12);
}

TEST_CASE("EPA: equal ellipsoids along their shortest axis", "[collision]") {
  // M = A - B is the ellipsoid 2A about -t; from a point on its shortest axis the nearest
  // boundary point is that axis's end: depth 2 a - t.
  const RigidTransform X_WA = Rotated(Vector3d(1, 1, 0), 0.4, Vector3d(0.1, 0.2, 0.3));
  RigidTransform X_WB = X_WA;
  X_WB.p += 0.045 * X_WA.R.col(0);
  const SignedDistanceResult r =
      Penetration(Ellipsoid(0.03, 0.09, 0.05), X_WA, Ellipsoid(0.03, 0.09, 0.05), X_WB);
  CHECK(r.phi0 == Approx(0.045 - 0.06).margin(1e-8));
  CHECK((r.nhat_AB_W - X_WA.R.col(0)).norm() < 1e-3);
}

TEST_CASE("EPA: a cylinder lying on a box", "[collision]") {
  // Cylinder of radius 0.1 along y, its axis 0.08 above the top face z = 0.5: 0.02 deep.
  const RigidTransform X_WB = Rotated(Vector3d::UnitX(), kPi / 2, Vector3d(0.2, 0, 0.58));
  const SignedDistanceResult r = Penetration(Box(1, 1, 1), At(0, 0, 0), Cylinder(0.1, 2), X_WB);
  CHECK(r.phi0 == Approx(-0.02).margin(1e-8));
  CHECK((r.nhat_AB_W - Vector3d::UnitZ()).norm() < 1e-3);
}

TEST_CASE("EPA: shapes apart give a lower bound and no convergence", "[collision]") {
  const SignedDistanceResult r =
      Penetration(Box(1, 1, 1), At(0, 0, 0), Cylinder(0.1, 0.2), At(0, 0, 0.7), false);
  CHECK(r.phi0 <= 0.1 + 1e-12);
}

}  // namespace
}  // namespace csim::geometry
