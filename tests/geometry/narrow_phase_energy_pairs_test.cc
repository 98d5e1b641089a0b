// Two narrow-phase pairs whose wrong contacts would let the scenes of
// tests/contact_physics/energy_test.cc gain energy, each posed so that the exact answer is
// known.

#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/narrow_phase.h"
#include "tests/geometry/contact_test_shapes.h"

namespace csim::geometry {
namespace {

using namespace test;  // NOLINT
using Eigen::Vector3d;
using math::RigidTransform;

constexpr double kMargin = 1e-3;  // [m] the default contact margin

std::vector<PointContact> Contacts(const Geometry& a, const RigidTransform& X_WA,
                                   const Geometry& b, const RigidTransform& X_WB) {
  std::vector<PointContact> out;
  CalcPairContacts(ContactShape(a), X_WA, ContactShape(b), X_WB, kMargin, &out);
  return out;
}

TEST_CASE("Sphere overlapping an ellipsoid by 1e-5 m: an overlap, normal from the sphere into "
          "the ellipsoid", "[collision]") {
  // The ellipsoid of radii (0.06, 0.03, 0.02) m at the origin; its surface point x at polar
  // angle 0.9 and azimuth 0.5 (x = radii * u, u the unit vector of those angles), with
  // outward normal m along u / radii. A sphere of radius r centred at x + (r - depth) m:
  // the point of a convex set nearest to an outside point on its normal at x is x, so the
  // signed distance is exactly -depth and the normal from the sphere into the ellipsoid
  // is -m. (A shallow overlap that came back as a gap with the normal reversed would let
  // an ellipsoid resting on a sphere sink in and be pushed back out: energy_test.cc.)
  const Vector3d radii(0.06, 0.03, 0.02);
  const double r = 0.04, depth = 1e-5, polar = 0.9, azimuth = 0.5;
  const Vector3d u(std::sin(polar) * std::cos(azimuth), std::sin(polar) * std::sin(azimuth),
                   std::cos(polar));
  const Vector3d x = radii.cwiseProduct(u), m = u.cwiseQuotient(radii).normalized();
  RigidTransform X_WS;  // the sphere; the ellipsoid's frame is the world's
  X_WS.p = x + (r - depth) * m;
  const std::vector<PointContact> c =
      Contacts(Sphere(r), X_WS, Ellipsoid(radii.x(), radii.y(), radii.z()), RigidTransform());
  REQUIRE(c.size() == 1);
  INFO("phi0 " << c[0].phi0 << ", normal " << c[0].nhat_AB_W.transpose());
  CHECK(c[0].phi0 == Approx(-depth).epsilon(0.1));  // the refinement's tolerance aside
  CHECK(c[0].nhat_AB_W.dot(-m) > 0.999);
}

TEST_CASE("Octahedron resting on an edge, a face 6.5 degrees from the ground: both ends of the "
          "edge are contacts", "[collision]") {
  // tests/data/octahedron.obj with its vertices s = 5 cm from the centre, resting on the
  // edge from (0, s, 0) to (0, 0, s), turned about that edge so that its face with
  // (-s, 0, 0) lies 6.5 degrees from the ground: that vertex is 7.0 mm up, the two ends of
  // the edge 0.1 mm up, well within the margin. Down, in the octahedron's frame, is
  // d = cos(beta) (0, 1, 1) / sqrt(2) + sin(beta) (-1, 0, 0), beta = 35.26 - 6.5 degrees
  // (35.26 degrees: between the edge's bisector and either face's normal). (An octahedron
  // tipping over an edge that lost one end of the edge for a step would find it again below
  // the ground and be pushed out of an overlap no force had stored: energy_test.cc.)
  const double s = 0.05, gap = 1e-4;
  const double beta = std::atan(1 / std::sqrt(2.0)) - 6.5 * 3.14159265358979323846 / 180;
  const Vector3d e = Vector3d(0, -1, 1).normalized();  // along the edge
  const Vector3d d = std::cos(beta) * Vector3d(0, 1, 1).normalized() +
                     std::sin(beta) * Vector3d(-1, 0, 0);
  Geometry octahedron = MakeShape(ShapeType::kMesh);
  std::string error;
  REQUIRE(ReadMeshFile(std::string(CSIM_SOURCE_DIR) + "/tests/data/octahedron.obj",
                       Vector3d::Constant(s), &octahedron.mesh, &error));
  Eigen::Matrix3d frame;  // octahedron-frame directions that become world x, y, z
  frame << e.cross(-d), e, -d;
  RigidTransform X_WO;
  X_WO.R = frame.transpose();
  X_WO.p = Vector3d(0, 0, gap + s * std::cos(beta) / std::sqrt(2.0));
  const Vector3d p_A = X_WO.R * Vector3d(0, s, 0) + X_WO.p;
  const Vector3d p_B = X_WO.R * Vector3d(0, 0, s) + X_WO.p;
  const Vector3d p_C = X_WO.R * Vector3d(-s, 0, 0) + X_WO.p;
  REQUIRE(p_A.z() == Approx(gap).margin(1e-12));
  REQUIRE(p_B.z() == Approx(gap).margin(1e-12));
  REQUIRE(p_C.z() == Approx(7.0e-3).margin(1e-4));
  const std::vector<PointContact> c = Contacts(Halfspace(), RigidTransform(), octahedron, X_WO);
  CHECK(c.size() == 2);
  for (const Vector3d& end : {p_A, p_B}) {
    INFO("edge end at " << end.transpose());
    bool found = false;
    for (const PointContact& p : c)
      found = found || ((p.p_WC - end).head<2>().norm() < 1e-9 && std::abs(p.phi0 - gap) < 1e-12);
    CHECK(found);
  }
}

}  // namespace
}  // namespace csim::geometry
