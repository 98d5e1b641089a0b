// A compliant mesh against a rigid half-space (engine/hydroelastic/plane_intersection.h):
// the coarse sphere of docs/design/hydroelastic.md §4 d in closed form, and on random poses
// of a jittered box the force against the pressure integral over the plane's slice (§4 a i),
// the stiffness against finite differences of that integral (§4 a ii, §3 ii) and the total
// area against the plane's section of the box.

#include "engine/hydroelastic/plane_intersection.h"

#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/hydroelastic/reference_geometry.h"
#include "tests/hydroelastic/test_meshes.h"
#include "tests/support/allocation_counter.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;
using math::RigidTransform;
using test::HalfSpace;

TEST_CASE("Rigid half-space: the octahedron vertex-down, in closed form (notes §4 d)",
          "[hydroelastic]") {
  const double R = 0.05, E = 1e6;
  const PressureField A = test::MakeOctahedronField(R, E);
  const Bvh bvh = BuildBvh(A.mesh);
  BvhCandidates candidates;
  ContactSurface surface;
  std::mt19937 engine(61);
  for (const double d : {0.2 * R, 0.5 * R, 0.9 * R}) {
    // The bottom vertex -R z at depth d below the plane; then the whole scene at a random pose.
    const RigidTransform X_WS = test::RandomPose(&engine, 1.0);
    const RigidTransform X_WA = X_WS;
    const RigidTransform X_WB = X_WS * RigidTransform{Eigen::Matrix3d::Identity(),
                                                      Vector3d(0, 0, -R + d)};
    surface.Clear();
    AppendSoftRigidHalfspaceSurface(A, bvh, X_WA, X_WB, &candidates, &surface);
    // The square |x| + |y| <= d: 4 right triangles of area d^2 / 2, each with
    // p = E (d - |x| - |y|) / R, so p0 = E d / (3R) at the centroid and g = E / R.
    REQUIRE(surface.polygons.size() == 4);
    double force = 0.0, stiffness = 0.0;
    for (const ContactPolygon& p : surface.polygons) {
      CHECK(p.area == Approx(d * d / 2).epsilon(1e-12));
      CHECK(p.pressure == Approx(E * d / (3 * R)).epsilon(1e-12));
      CHECK(p.gradient_a == Approx(E / R).epsilon(1e-12));
      CHECK(std::isinf(p.gradient_b));
      CHECK((p.normal + X_WS.R.col(2)).norm() < 1e-14);  // from the body into the half-space
      force += p.area * p.pressure;
      stiffness += p.area * p.gradient_a;
    }
    CHECK(force == Approx(2 * E * d * d * d / (3 * R)).epsilon(1e-12));
    CHECK(stiffness == Approx(2 * E * d * d / R).epsilon(1e-12));  // = dF/dd
  }
}

/// Reference force of the rigid plane (world, unit normal n_W out of the half-space, through
/// point o_W) against field A: sum over all tets of the Gauss integral of the interpolated
/// pressure over the plane's section of the tet.
double ReferenceForce(const PressureField& A, const RigidTransform& X_WA, const Vector3d& n_W,
                      const Vector3d& o_W, double* area) {
  double force = 0.0;
  *area = 0.0;
  for (int t = 0; t < static_cast<int>(A.mesh.tets.size()); ++t) {
    const auto tet = test::MeshTet(A.mesh, t, [&](const Vector3d& x) { return X_WA * x; });
    const auto polygon = test::ReferencePolygon(-n_W, n_W.dot(o_W), test::TetHalfSpaces(tet));
    if (polygon.empty()) continue;
    *area += test::ShoelaceArea(polygon, -n_W);
    force += test::IntegrateOverPolygon(polygon, [&](const Vector3d& x) {
      return test::InterpolatedPressure(A, t, X_WA.Inverse() * x);
    });
  }
  return force;
}

TEST_CASE("Rigid half-space: random poses, force, stiffness and area against references",
          "[hydroelastic]") {
  const Vector3d half(0.3, 0.2, 0.15);
  const PressureField A =
      test::MakeJitteredBoxField(half, Eigen::Vector3i(4, 3, 3), 1e5, 0.15, 7);
  const Bvh bvh = BuildBvh(A.mesh);
  BvhCandidates candidates;
  ContactSurface surface;
  std::mt19937 engine(62);
  for (int trial = 0; trial < 6; ++trial) {
    const RigidTransform X_WA = test::RandomPose(&engine, 0.05);
    const RigidTransform X_WB = test::RandomPose(&engine, 0.05);
    surface.Clear();
    AppendSoftRigidHalfspaceSurface(A, bvh, X_WA, X_WB, &candidates, &surface);
    const Vector3d n_W = X_WB.R.col(2);
    double force = 0.0, area = 0.0, stiffness = 0.0;
    for (const ContactPolygon& p : surface.polygons) {
      CHECK((p.normal + n_W).norm() < 1e-14);
      CHECK(std::abs(n_W.dot(p.centroid - X_WB.p)) < 1e-14);
      force += p.area * p.pressure;
      area += p.area;
      stiffness += p.area * p.gradient_a;
    }
    INFO("trial " << trial << ", " << surface.polygons.size() << " polygons");
    REQUIRE(surface.polygons.size() > 20);
    double ref_area;
    const double ref_force = ReferenceForce(A, X_WA, n_W, X_WB.p, &ref_area);
    CHECK(force == Approx(ref_force).epsilon(1e-10));
    CHECK(area == Approx(ref_area).epsilon(1e-10));
    // No cracks: the slices of all tets tile the plane's section of the box.
    std::vector<HalfSpace> box;
    for (int i = 0; i < 3; ++i) {
      const Vector3d axis = X_WA.R.col(i);
      box.push_back({axis, -axis.dot(X_WA.p) - half[i]});
      box.push_back({-axis, axis.dot(X_WA.p) - half[i]});
    }
    const auto section = test::ReferencePolygon(-n_W, n_W.dot(X_WB.p), box);
    CHECK(area == Approx(test::ShoelaceArea(section, -n_W)).epsilon(1e-12));
    // Sum A g = dF/dd when the plane advances into the body along n_W (margin 0, notes §3 ii),
    // by central differences of the reference force.
    const double h = 1e-6;  // [m]: the force is piecewise cubic in the advance; roundoff limits h
    double unused;
    const double dF = (ReferenceForce(A, X_WA, n_W, X_WB.p + h * n_W, &unused) -
                       ReferenceForce(A, X_WA, n_W, X_WB.p - h * n_W, &unused)) /
                      (2 * h);
    CHECK(stiffness == Approx(dF).epsilon(1e-8));
  }
}

TEST_CASE("Rigid half-space: warmed-up computation does not allocate", "[hydroelastic]") {
  const PressureField A =
      test::MakeBoxField(Vector3d(0.3, 0.2, 0.15), Eigen::Vector3i(4, 3, 3), 1e5);
  const Bvh bvh = BuildBvh(A.mesh);
  const RigidTransform X_WB{math::RotationFromRpy(Vector3d(0.2, 0.1, 0)), Vector3d(0, 0, -0.1)};
  BvhCandidates candidates;
  ContactSurface surface;
  AppendSoftRigidHalfspaceSurface(A, bvh, RigidTransform(), X_WB, &candidates, &surface);
  REQUIRE(!surface.polygons.empty());
  const std::size_t before = testing::AllocationCount();
  surface.Clear();
  AppendSoftRigidHalfspaceSurface(A, bvh, RigidTransform(), X_WB, &candidates, &surface);
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::hydroelastic
