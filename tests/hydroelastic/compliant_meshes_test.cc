// The curved compliant meshes (sphere, ellipsoid, capsule) against their shapes: the tet
// counts of the design notes' table, well-formed meshes (positive tets, closed boundary, tets
// filling exactly what the boundary encloses), boundary vertices on the shape with p = 0, p = E
// at the centre, and the volume and field errors shrinking as O(h^2).

#include "engine/hydroelastic/compliant_meshes.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

#include "tests/hydroelastic/compliant_meshes_test_support.h"
#include "tests/support/build_variant.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;
using test::CheckFaces;
using test::FieldAt;
using test::TetVolumes;

constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 1e5;  // modulus [Pa]

/// Mean |p_h - p_exact| over random points of a box [-extent, extent] where the mesh is.
template <class Exact>
double MeanFieldError(const PressureField& field, const Vector3d& extent, const Exact& exact) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double sum = 0.0;
  int count = 0;
  for (int k = 0; k < 3000; ++k) {
    const Vector3d p = extent.cwiseProduct(Vector3d(u(rng), u(rng), u(rng)));
    const double value = FieldAt(field, p);
    if (std::isnan(value)) continue;
    sum += std::abs(value - exact(p));
    ++count;
  }
  REQUIRE(count > 500);
  return sum / count;
}

TEST_CASE("sphere refinement follows the notes' table", "[compliant_meshes]") {
  // docs/design/hydroelastic.md §1: R = 5 cm.
  const double R = 0.05;
  CHECK(MakeCompliantSphere(R, kE, 0.05, 0).mesh.tets.size() == 32);
  CHECK(MakeCompliantSphere(R, kE, 0.025, 0).mesh.tets.size() == 128);
  CHECK(MakeCompliantSphere(R, kE, 0.02, 0).mesh.tets.size() == 128);
  CHECK(MakeCompliantSphere(R, kE, 0.01, 0).mesh.tets.size() == 512);
  CHECK(MakeCompliantSphere(R, kE, 0.005, 0).mesh.tets.size() == 2048);
  CHECK(MakeCompliantSphere(R, kE, 1.0, 0).mesh.tets.size() == 8);  // h >= 2R: the octahedron
  CHECK(SphereRefinementLevel(R, 1e-12) == kMaxSphereRefinement);   // a tiny hint is capped
}

TEST_CASE("sphere meshes are well formed, on the sphere, 0 outside and E inside",
          "[compliant_meshes]") {
  const double R = 0.05;
  for (double h : {1.0, 0.05, 0.02, 0.01}) {
    const PressureField field = MakeCompliantSphere(R, kE, h, 0.0);
    test::CheckWellFormed(field, kE);
    const test::FaceCheck faces = CheckFaces(field.mesh);
    int interior = 0;
    for (size_t v = 0; v < field.mesh.vertices.size(); ++v) {
      if (!faces.on_boundary[v]) {
        ++interior;
        continue;
      }
      CHECK(field.mesh.vertices[v].norm() == Approx(R).epsilon(1e-14));
      CHECK(field.pressure[v] == 0.0);
    }
    CHECK(interior == 1);  // "sparse": the centre only
    bool consistent = false;
    CHECK(FieldAt(field, Vector3d::Zero(), &consistent) == Approx(kE).epsilon(1e-14));
    CHECK(consistent);
  }
}

TEST_CASE("sphere volume and field converge at second order", "[compliant_meshes]") {
  const double R = 0.05;
  const double volume = 4.0 / 3.0 * kPi * R * R * R;
  auto exact = [&](const Vector3d& p) { return kE * (1.0 - p.norm() / R); };
  double previous_volume_error = 0.0, previous_field_error = 0.0;
  for (double h : {0.02, 0.01, 0.005, 0.0025}) {  // L = 2, 3, 4, 5: the edge halves each time
    const PressureField field = MakeCompliantSphere(R, kE, h, 0.0);
    const double volume_error = volume - TetVolumes(field.mesh).second;
    CHECK(volume_error > 0.0);  // inscribed
    const double field_error =
        field.mesh.tets.size() > 2048 ? 0.0 : MeanFieldError(field, Vector3d::Constant(R), exact);
    if (previous_volume_error > 0.0) {
      CHECK(previous_volume_error / volume_error == Approx(4.0).epsilon(0.1));
      if (field_error > 0.0)
        CHECK(previous_field_error / field_error == Approx(4.0).epsilon(0.25));
    }
    previous_volume_error = volume_error;
    previous_field_error = field_error;
  }
}

TEST_CASE("ellipsoid: scaled unit sphere, field 0 on it, volume converging", "[compliant_meshes]") {
  // The spatula gripper's bubble (notes §6): a = b = 0.04165, c = 0.0625, hint 0.04 -> 128 tets.
  const Vector3d axes(0.04165, 0.04165, 0.0625);
  CHECK(MakeCompliantEllipsoid(axes, kE, 0.04, 0.0).mesh.tets.size() == 128);
  const double volume = 4.0 / 3.0 * kPi * axes.prod();
  double previous_error = 0.0;
  for (double h : {0.04, 0.02, 0.01, 0.005}) {
    const PressureField field = MakeCompliantEllipsoid(axes, kE, h, 0.0);
    test::CheckWellFormed(field, kE);
    const test::FaceCheck faces = CheckFaces(field.mesh);
    for (size_t v = 0; v < field.mesh.vertices.size(); ++v) {
      if (!faces.on_boundary[v]) continue;
      CHECK(field.mesh.vertices[v].cwiseQuotient(axes).norm() == Approx(1.0).epsilon(1e-14));
      CHECK(field.pressure[v] == 0.0);
    }
    CHECK(FieldAt(field, Vector3d::Zero()) == Approx(kE).epsilon(1e-14));
    const double error = volume - TetVolumes(field.mesh).second;
    if (previous_error > 0.0) CHECK(previous_error / error == Approx(4.0).epsilon(0.1));
    previous_error = error;
  }
}

/// Distance from p to the segment from (0,0,-half) to (0,0,half).
double DistanceToSegment(const Vector3d& p, double half) {
  const double z = std::clamp(p.z(), -half, half);
  return (p - Vector3d(0, 0, z)).norm();
}

TEST_CASE("capsule: counts, field E(1 - r/R) at the vertices, second-order convergence",
          "[compliant_meshes]") {
  const double R = 0.05, L = 0.1;
  const double volume = kPi * R * R * L + 4.0 / 3.0 * kPi * R * R * R;
  auto exact = [&](const Vector3d& p) { return kE * (1.0 - DistanceToSegment(p, L / 2) / R); };
  std::vector<double> volume_errors, field_errors, sizes;
  // The sanitized program measures the order on the three coarser meshes: the finest costs
  // most of the case's time there.
  std::vector<double> hints = {0.05, 0.025, 0.0125, 0.00625};
  if (testing::UnderAddressSanitizer()) hints.pop_back();
  for (double h : hints) {
    const PressureField field = MakeCompliantCapsule(R, L, kE, h, 0.0);
    test::CheckWellFormed(field, kE);
    // n = ceil(2 pi R / h) around, m = ceil(n/4) latitude steps: 4n(m-1) + 5n tets.
    const int n = static_cast<int>(std::ceil(2 * kPi * R / h));
    const int m = (n + 3) / 4;
    CHECK(field.mesh.tets.size() == static_cast<size_t>(4 * n * (m - 1) + 5 * n));
    const test::FaceCheck faces = CheckFaces(field.mesh);
    int interior = 0;
    for (size_t v = 0; v < field.mesh.vertices.size(); ++v) {
      const Vector3d& x = field.mesh.vertices[v];
      CHECK(field.pressure[v] == Approx(exact(x)).margin(1e-9 * kE));
      if (faces.on_boundary[v]) CHECK(DistanceToSegment(x, L / 2) == Approx(R).epsilon(1e-14));
      else ++interior;
    }
    CHECK(interior == 2);  // the segment's ends
    volume_errors.push_back(volume - TetVolumes(field.mesh).second);
    field_errors.push_back(MeanFieldError(field, Vector3d(R, R, R + L / 2), exact));
    sizes.push_back(2 * kPi * R / n);
  }
  // Slopes in log-log from the coarsest to the finest mesh.
  const double span = std::log(sizes.front() / sizes.back());
  CHECK(std::log(volume_errors.front() / volume_errors.back()) / span == Approx(2.0).epsilon(0.1));
  CHECK(std::log(field_errors.front() / field_errors.back()) / span == Approx(2.0).epsilon(0.15));
}

TEST_CASE("coarseness compares surface edges with a quarter of the smallest dimension",
          "[compliant_meshes]") {
  const double R = 0.05;
  // L = 1: the longest edges join two midpoints of an octant's edges, e.g. (1,1,0)/sqrt 2 and
  // (1,0,1)/sqrt 2, 60 degrees apart: chord 2R sin(30 deg) = R (vertex to midpoint: 45 deg).
  const MeshCoarseness coarse =
      CheckMeshCoarseness(MakeCompliantSphere(R, kE, 0.05, 0).mesh, 2 * R);
  CHECK(coarse.longest_boundary_edge == Approx(R).epsilon(1e-12));
  CHECK(coarse.limit == Approx(R / 2));
  CHECK(coarse.coarse());
  CHECK_FALSE(CheckMeshCoarseness(MakeCompliantSphere(R, kE, 0.01, 0).mesh, 2 * R).coarse());
}

TEST_CASE("the dispatcher follows shape.h's size conventions", "[compliant_meshes]") {
  geometry::Geometry g;
  PressureField field;
  std::string error;
  g.type = geometry::ShapeType::kSphere;
  g.size = Vector3d(0.05, 0, 0);
  REQUIRE(MakeCompliantField(g, kE, 0.02, 0.0, &field, &error));
  CHECK(field.mesh.tets.size() == 128);
  g.type = geometry::ShapeType::kBox;
  g.size = Vector3d(0.2, 0.4, 0.6);  // full edges: volume 0.048
  REQUIRE(MakeCompliantField(g, kE, 0.02, 0.0, &field, &error));
  CHECK(TetVolumes(field.mesh).second == Approx(0.048).epsilon(1e-12));
  g.type = geometry::ShapeType::kHalfspace;
  CHECK_FALSE(MakeCompliantField(g, kE, 0.02, 0.0, &field, &error));
  CHECK_FALSE(error.empty());
}

}  // namespace
}  // namespace csim::hydroelastic
