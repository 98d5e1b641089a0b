// Rigid surface meshes against a compliant mesh or a compliant half-space
// (engine/hydroelastic/mesh_intersection.h): the 5 pi / 8 filter on a thin plate inside a pad,
// a rigid plate on an elastic foundation in closed form (docs/design/hydroelastic.md §4 e),
// and random poses against the reference geometry of tests/hydroelastic/reference_geometry.h.

#include "engine/hydroelastic/mesh_intersection.h"

#include <algorithm>
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

constexpr double kMaxAngle = 5.0 * M_PI / 8.0;  // §2 a

double Angle(const Vector3d& u, const Vector3d& v) {
  if (u.norm() == 0.0 || v.norm() == 0.0) return M_PI / 2;
  return std::acos(std::clamp(u.normalized().dot(v.normalized()), -1.0, 1.0));
}

/// World triangle f of `mesh` at pose X_WB, its unit outward normal, and the half-spaces of its
/// 3 edges within its plane.
struct WorldTriangle {
  std::array<Vector3d, 3> x;
  Vector3d n;
  std::vector<HalfSpace> edges;
};

WorldTriangle MakeWorldTriangle(const SurfaceMesh& mesh, int f, const RigidTransform& X_WB) {
  WorldTriangle t;
  for (int i = 0; i < 3; ++i) t.x[i] = X_WB * mesh.vertices[mesh.triangles[f][i]];
  t.n = (t.x[1] - t.x[0]).cross(t.x[2] - t.x[0]).normalized();
  for (int i = 0; i < 3; ++i) {
    const Vector3d out = (t.x[(i + 1) % 3] - t.x[i]).cross(t.n);
    t.edges.push_back({out, -out.dot(t.x[i])});
  }
  return t;
}

TEST_CASE("Rigid mesh: a thin plate in a pad is pushed on its lower face only",
          "[hydroelastic]") {
  // The pad z in [-0.5, 0] with p = -k z, rising with depth; the plate 0.4 x 0.4 x 0.01 m at
  // depth 0.1 m. Its lower face (outward -z) looks toward higher pressure and is in contact; its
  // upper face looks away (angle pi > 5 pi / 8) and is skipped; its sides (angle pi / 2) are kept
  // with g_a = 0.
  const double k = 1e6, depth = 0.1, t = 0.005;
  const PressureField A = test::MakeField(
      test::MakeBoxVolumeMesh(Vector3d(0.5, 0.5, 0.25), Eigen::Vector3i(4, 4, 2)),
      [&](const Vector3d& x) { return k * (0.25 - x.z()); }, 0.5 * k);
  const RigidTransform X_WA{Eigen::Matrix3d::Identity(), Vector3d(0, 0, -0.25)};
  const SurfaceMesh B = test::MakeBoxSurface(Vector3d(0.2, 0.2, t));
  const RigidTransform X_WB{Eigen::Matrix3d::Identity(), Vector3d(0.01, 0.02, -depth)};
  BvhCandidates candidates;
  ContactSurface surface;
  AppendSoftRigidMeshSurface(A, BuildBvh(A.mesh), X_WA, B, BuildBvh(B), X_WB, &candidates,
                             &surface);
  double lower_area = 0.0, lower_force = 0.0, side_area = 0.0;
  Vector3d side_force = Vector3d::Zero();
  for (const ContactPolygon& p : surface.polygons) {
    CHECK(std::isinf(p.gradient_b));
    if ((p.normal - Vector3d::UnitZ()).norm() < 1e-14) {  // the lower face, n_B = -z
      lower_area += p.area;
      lower_force += p.area * p.pressure;
      CHECK(p.gradient_a == Approx(k));
    } else {
      CHECK(std::abs(p.normal.z()) < 1e-14);  // a side; never the upper face
      CHECK(std::abs(p.gradient_a) < 1e-9 * k);
      side_area += p.area;
      side_force += p.area * p.pressure * p.normal;
    }
  }
  CHECK(lower_area == Approx(0.16).epsilon(1e-12));
  CHECK(lower_force == Approx(0.16 * k * (depth + t)).epsilon(1e-12));
  CHECK(side_area == Approx(4 * 0.4 * 2 * t).epsilon(1e-12));
  CHECK(side_force.norm() < 1e-9 * lower_force);  // opposite sides cancel
}

TEST_CASE("Compliant half-space: a rigid plate on a foundation, in closed form (notes §4 e)",
          "[hydroelastic]") {
  // The box of half sizes (a, b, c), turned about z, its lower face d below the plane of the
  // half-space (E, H): F = E A d / H along +z on the box, sum A g = E A / H over the lower face,
  // side faces with g_a = 0 whose forces cancel. With a margin, a box above the plane by less
  // than the margin gets a lower face of negative pressure (speculative contact, notes §1).
  const double a = 0.2, b = 0.1, c = 0.05, E = 250.0, H = 0.1;
  const SurfaceMesh B = test::MakeBoxSurface(Vector3d(a, b, c));
  const Bvh bvh_B = BuildBvh(B);
  const RigidTransform X_WA{math::RotationFromRpy(Vector3d(0, 0, 0.4)), Vector3d(0.5, 0.1, 0)};
  BvhCandidates candidates;
  ContactSurface surface;
  for (const double d : {0.01, 0.03, -0.0005}) {
    const CompliantHalfspace A{E, H, 0.001};
    const RigidTransform X_WB{math::RotationFromRpy(Vector3d(0, 0, -0.3)),
                              Vector3d(0.2, 0.3, c - d)};
    surface.Clear();
    AppendCompliantHalfspaceRigidMeshSurface(A, X_WA, B, bvh_B, X_WB, &candidates, &surface);
    Vector3d force = Vector3d::Zero();
    double lower_area = 0.0, stiffness = 0.0;
    for (const ContactPolygon& p : surface.polygons) {
      force += p.area * p.pressure * p.normal;
      CHECK(std::isinf(p.gradient_b));
      if ((p.normal - Vector3d::UnitZ()).norm() < 1e-14) {
        lower_area += p.area;
        stiffness += p.area * p.gradient_a;
        CHECK(p.pressure == Approx(E * d / H).epsilon(1e-12));
      } else {
        CHECK(std::abs(p.gradient_a) < 1e-12 * E / H);
      }
    }
    CHECK(lower_area == Approx(4 * a * b).epsilon(1e-12));
    CHECK(stiffness == Approx(E * 4 * a * b / H).epsilon(1e-12));
    CHECK((force - E * 4 * a * b * d / H * Vector3d::UnitZ()).norm() < 1e-10 * E * a * b);
  }
  // Beyond the margin, nothing.
  const RigidTransform X_WB{Eigen::Matrix3d::Identity(), Vector3d(0, 0, c + 0.0011)};
  surface.Clear();
  AppendCompliantHalfspaceRigidMeshSurface({E, H, 0.001}, X_WA, B, bvh_B, X_WB, &candidates,
                                           &surface);
  CHECK(surface.polygons.empty());
}

/// Sum of A p0 and of A g_a over a surface.
void Sums(const ContactSurface& s, double* force, double* stiffness) {
  *force = *stiffness = 0.0;
  for (const ContactPolygon& p : s.polygons) {
    *force += p.area * p.pressure;
    *stiffness += p.area * p.gradient_a;
  }
}

TEST_CASE("Rigid mesh vs soft mesh: random poses against the reference", "[hydroelastic]") {
  const PressureField A = test::MakeJitteredBoxField(Vector3d(0.3, 0.2, 0.15),
                                                     Eigen::Vector3i(4, 3, 3), 1e5, 0.15, 9);
  const SurfaceMesh B = test::MakeBoxSurface(Vector3d(0.15, 0.1, 0.12));
  const Bvh bvh_A = BuildBvh(A.mesh), bvh_B = BuildBvh(B);
  BvhCandidates candidates;
  ContactSurface surface;
  std::mt19937 engine(71);
  for (int trial = 0; trial < 6; ++trial) {
    const RigidTransform X_WA = test::RandomPose(&engine, 0.1);
    const RigidTransform X_WB = test::RandomPose(&engine, 0.1);
    surface.Clear();
    AppendSoftRigidMeshSurface(A, bvh_A, X_WA, B, bvh_B, X_WB, &candidates, &surface);
    double force, stiffness;
    Sums(surface, &force, &stiffness);
    double ref_force = 0.0, ref_stiffness = 0.0;
    for (int f = 0; f < static_cast<int>(B.triangles.size()); ++f) {
      const WorldTriangle tri = MakeWorldTriangle(B, f, X_WB);
      for (int t = 0; t < static_cast<int>(A.mesh.tets.size()); ++t) {
        const auto tet = test::MeshTet(A.mesh, t, [&](const Vector3d& x) { return X_WA * x; });
        // A's gradient in the world from the vertex values: the pressure at the 4 vertices.
        Eigen::Matrix4d M;
        Eigen::Vector4d p;
        for (int i = 0; i < 4; ++i) {
          M.row(i) << tet[i].transpose(), 1.0;
          p[i] = A.pressure[A.mesh.tets[t][i]];
        }
        const Vector3d grad = M.fullPivLu().solve(p).head<3>();
        if (Angle(tri.n, grad) > kMaxAngle) continue;
        std::vector<HalfSpace> halves = test::TetHalfSpaces(tet);
        halves.insert(halves.end(), tri.edges.begin(), tri.edges.end());
        const auto polygon = test::ReferencePolygon(-tri.n, tri.n.dot(tri.x[0]), halves);
        if (polygon.empty()) continue;
        ref_force += test::IntegrateOverPolygon(polygon, [&](const Vector3d& x) {
          return test::InterpolatedPressure(A, t, X_WA.Inverse() * x);
        });
        ref_stiffness += test::ShoelaceArea(polygon, -tri.n) * grad.dot(tri.n);
      }
    }
    INFO("trial " << trial << ", " << surface.polygons.size() << " polygons");
    REQUIRE(surface.polygons.size() > 10);
    CHECK(force == Approx(ref_force).epsilon(1e-10));
    CHECK(stiffness == Approx(ref_stiffness).epsilon(1e-10));
    // Each polygon lies on a face of B, its normal is that face's inward normal, and it winds
    // counter-clockwise about it.
    for (const ContactPolygon& p : surface.polygons) {
      const Vector3d c_B = X_WB.Inverse() * p.centroid;
      const Vector3d n_B = X_WB.R.transpose() * -p.normal;
      int axis;
      n_B.cwiseAbs().maxCoeff(&axis);
      CHECK(std::abs(std::abs(n_B[axis]) - 1.0) < 1e-14);
      CHECK(std::abs(std::abs(c_B[axis]) - Vector3d(0.15, 0.1, 0.12)[axis]) < 1e-12);
      CHECK(c_B[axis] * n_B[axis] > 0.0);
      for (int i = 0; i < p.num_vertices; ++i) {
        const Vector3d& u = surface.vertices[p.first_vertex + i];
        const Vector3d& v = surface.vertices[p.first_vertex + (i + 1) % p.num_vertices];
        const Vector3d& w = surface.vertices[p.first_vertex + (i + 2) % p.num_vertices];
        CHECK((v - u).cross(w - v).dot(p.normal) >= -1e-14);
      }
    }
  }
}

TEST_CASE("Compliant half-space vs rigid mesh: random poses against the reference",
          "[hydroelastic]") {
  const SurfaceMesh B = test::MakeBoxSurface(Vector3d(0.15, 0.1, 0.12));
  const Bvh bvh_B = BuildBvh(B);
  const CompliantHalfspace A{1e5, 0.05, 0.002};
  BvhCandidates candidates;
  ContactSurface surface;
  std::mt19937 engine(72);
  for (int trial = 0; trial < 20; ++trial) {
    const RigidTransform X_WA = test::RandomPose(&engine, 0.1);
    const RigidTransform X_WB = test::RandomPose(&engine, 0.1);
    surface.Clear();
    AppendCompliantHalfspaceRigidMeshSurface(A, X_WA, B, bvh_B, X_WB, &candidates, &surface);
    double force, stiffness;
    Sums(surface, &force, &stiffness);
    const Vector3d n_W = X_WA.R.col(2);
    const double k = A.modulus / A.slab_thickness;
    const HalfSpace region{n_W, -n_W.dot(X_WA.p) - A.margin};
    double ref_force = 0.0, ref_stiffness = 0.0;
    for (int f = 0; f < static_cast<int>(B.triangles.size()); ++f) {
      const WorldTriangle tri = MakeWorldTriangle(B, f, X_WB);
      if (Angle(tri.n, -n_W) > kMaxAngle) continue;
      std::vector<HalfSpace> halves = tri.edges;
      halves.push_back(region);
      const auto polygon = test::ReferencePolygon(-tri.n, tri.n.dot(tri.x[0]), halves);
      if (polygon.empty()) continue;
      ref_force += test::IntegrateOverPolygon(
          polygon, [&](const Vector3d& x) { return -k * n_W.dot(x - X_WA.p); });
      ref_stiffness += test::ShoelaceArea(polygon, -tri.n) * -k * n_W.dot(tri.n);
    }
    INFO("trial " << trial);
    CHECK(force == Approx(ref_force).epsilon(1e-10).margin(1e-10));
    CHECK(stiffness == Approx(ref_stiffness).epsilon(1e-10).margin(1e-10));
  }
}

TEST_CASE("Rigid mesh: warmed-up computations do not allocate", "[hydroelastic]") {
  const PressureField A =
      test::MakeBoxField(Vector3d(0.3, 0.2, 0.15), Eigen::Vector3i(4, 3, 3), 1e5);
  const SurfaceMesh B = test::MakeBoxSurface(Vector3d(0.15, 0.1, 0.12));
  const Bvh bvh_A = BuildBvh(A.mesh), bvh_B = BuildBvh(B);
  const RigidTransform X_WB{math::RotationFromRpy(Vector3d(0.3, 0.2, 0.1)), Vector3d(0.1, 0, 0.2)};
  BvhCandidates candidates;
  ContactSurface surface;
  AppendSoftRigidMeshSurface(A, bvh_A, RigidTransform(), B, bvh_B, X_WB, &candidates, &surface);
  AppendCompliantHalfspaceRigidMeshSurface({1e5, 0.05, 0.0}, RigidTransform(), B, bvh_B, X_WB,
                                           &candidates, &surface);
  REQUIRE(!surface.polygons.empty());
  const std::size_t before = testing::AllocationCount();
  surface.Clear();
  AppendSoftRigidMeshSurface(A, bvh_A, RigidTransform(), B, bvh_B, X_WB, &candidates, &surface);
  AppendCompliantHalfspaceRigidMeshSurface({1e5, 0.05, 0.0}, RigidTransform(), B, bvh_B, X_WB,
                                           &candidates, &surface);
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::hydroelastic
