// Margin (docs/design/hydroelastic.md §1): the mesh covers the shape inflated by delta, p = 0
// stays on the original (meshed) surface, p < 0 in the skirt down to -E delta / H on the outer
// surface, p = E at the deepest point, and the tessellation is that of the original shape.

#include "engine/hydroelastic/compliant_meshes.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

#include "tests/hydroelastic/compliant_meshes_test_support.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;
using test::CheckFaces;
using test::FieldAt;

constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 1e6;       // modulus [Pa]
constexpr double kDelta = 0.004;  // margin [m]

TEST_CASE("sphere margin: zero on radius R along the vertex rays, negative beyond",
          "[compliant_meshes]") {
  const double R = 0.05;
  const PressureField field = MakeCompliantSphere(R, kE, 0.02, kDelta);
  test::CheckWellFormed(field, kE);
  CHECK(field.mesh.tets.size() == 128);  // the hint applies to the original sphere
  const test::FaceCheck faces = CheckFaces(field.mesh);
  for (size_t v = 0; v < field.mesh.vertices.size(); ++v) {
    if (!faces.on_boundary[v]) continue;
    const Vector3d& x = field.mesh.vertices[v];
    CHECK(x.norm() == Approx(R + kDelta).epsilon(1e-14));
    CHECK(field.pressure[v] == Approx(-kE * kDelta / R).epsilon(1e-12));
    CHECK(FieldAt(field, R * x.normalized()) == Approx(0).margin(1e-9 * kE));
    CHECK(FieldAt(field, (R + kDelta / 2) * x.normalized()) < 0.0);
  }
  CHECK(FieldAt(field, Vector3d::Zero()) == Approx(kE).epsilon(1e-12));
}

TEST_CASE("ellipsoid margin: zero on the ellipsoid along the vertex rays", "[compliant_meshes]") {
  const Vector3d axes(0.03, 0.05, 0.08);
  const PressureField field = MakeCompliantEllipsoid(axes, kE, 0.02, kDelta);
  test::CheckWellFormed(field, kE);
  CHECK(field.mesh.tets.size() == MakeCompliantEllipsoid(axes, kE, 0.02, 0).mesh.tets.size());
  const test::FaceCheck faces = CheckFaces(field.mesh);
  for (size_t v = 0; v < field.mesh.vertices.size(); ++v) {
    if (!faces.on_boundary[v]) continue;
    const Vector3d& x = field.mesh.vertices[v];
    CHECK(x.cwiseQuotient(axes + Vector3d::Constant(kDelta)).norm() == Approx(1).epsilon(1e-14));
    CHECK(field.pressure[v] < 0.0);
    CHECK(FieldAt(field, x / x.cwiseQuotient(axes).norm()) == Approx(0).margin(1e-9 * kE));
  }
  CHECK(FieldAt(field, Vector3d::Zero()) == Approx(kE).epsilon(1e-12));
}

TEST_CASE("box margin: zero on the original faces, the original field inside",
          "[compliant_meshes]") {
  const Vector3d size(0.1, 0.2, 0.3), half = size / 2;
  const double h = half.minCoeff();
  const PressureField field = MakeCompliantBox(size, kE, kDelta);
  test::CheckWellFormed(field, kE);
  CHECK(test::TetVolumes(field.mesh).second ==
        Approx((size + Vector3d::Constant(2 * kDelta)).prod()).epsilon(1e-12));
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < 300; ++k) {
    const Vector3d p = half.cwiseProduct(Vector3d(u(rng), u(rng), u(rng)));
    CHECK(FieldAt(field, p) == Approx(kE * (half - p.cwiseAbs()).minCoeff() / h).margin(1e-9 * kE));
    // Push p onto a face (axis k % 3), then half a margin out into the skirt.
    Vector3d q = p;
    const int axis = k % 3;
    q[axis] = (p[axis] >= 0 ? 1 : -1) * half[axis];
    CHECK(FieldAt(field, q) == Approx(0).margin(1e-9 * kE));
    q[axis] += (p[axis] >= 0 ? 1 : -1) * kDelta / 2;
    CHECK(FieldAt(field, q) == Approx(-kE * kDelta / 2 / h).margin(1e-9 * kE));
  }
  const test::FaceCheck faces = CheckFaces(field.mesh);
  for (size_t v = 0; v < field.mesh.vertices.size(); ++v)
    if (faces.on_boundary[v]) CHECK(field.pressure[v] == Approx(-kE * kDelta / h).epsilon(1e-12));
}

TEST_CASE("cylinder margin: zero on the original n-gon prism, the original field inside",
          "[compliant_meshes]") {
  for (double L : {0.3, 0.2, 0.08}) {  // long, equal, short (R = 0.1)
    const double R = 0.1, H = std::min(R, L / 2);
    const int n = 13;  // ceil(2 pi 0.1 / 0.05)
    const PressureField field = MakeCompliantCylinder(R, L, kE, 0.05, kDelta);
    test::CheckWellFormed(field, kE);
    CHECK(field.mesh.tets.size() == MakeCompliantCylinder(R, L, kE, 0.05, 0).mesh.tets.size());
    // Distances to the original prism's faces (sides scaled by 1/cos(pi/n)) and their min.
    auto scaled_distance = [&](const Vector3d& p) {
      double side = INFINITY;
      for (int i = 0; i < n; ++i) {
        const double a = 2 * kPi * (i + 0.5) / n;
        side = std::min(side, R * std::cos(kPi / n) - p.x() * std::cos(a) - p.y() * std::sin(a));
      }
      return std::min(side / std::cos(kPi / n), L / 2 - std::abs(p.z()));
    };
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    int inside = 0;
    while (inside < 300) {
      const Vector3d p(R * u(rng), R * u(rng), L / 2 * u(rng));
      const double d = scaled_distance(p);
      if (d < 0) continue;
      ++inside;
      CHECK(FieldAt(field, p) == Approx(kE * d / H).margin(1e-9 * kE));
      // The point on the cap above p (original surface) and half a margin beyond it.
      const Vector3d cap(p.x(), p.y(), p.z() >= 0 ? L / 2 : -L / 2);
      CHECK(FieldAt(field, cap) == Approx(0).margin(1e-9 * kE));
      const Vector3d skirt = cap + Vector3d(0, 0, cap.z() > 0 ? kDelta / 2 : -kDelta / 2);
      CHECK(FieldAt(field, skirt) == Approx(-kE * kDelta / 2 / H).margin(1e-9 * kE));
    }
    // Points on the original side faces: the midpoints of the rim edges at random heights.
    for (int i = 0; i < n; ++i) {
      const double a = 2 * kPi * (i + 0.5) / n;
      const Vector3d side(R * std::cos(kPi / n) * std::cos(a), R * std::cos(kPi / n) * std::sin(a),
                          L / 2 * u(rng));
      CHECK(FieldAt(field, side) == Approx(0).margin(1e-9 * kE));
    }
  }
}

TEST_CASE("capsule margin: zero at distance R from the segment along the vertex rays",
          "[compliant_meshes]") {
  const double R = 0.05, L = 0.1;
  const PressureField field = MakeCompliantCapsule(R, L, kE, 0.02, kDelta);
  test::CheckWellFormed(field, kE);
  const test::FaceCheck faces = CheckFaces(field.mesh);
  for (size_t v = 0; v < field.mesh.vertices.size(); ++v) {
    if (!faces.on_boundary[v]) continue;
    const Vector3d& x = field.mesh.vertices[v];
    const Vector3d foot(0, 0, std::clamp(x.z(), -L / 2, L / 2));  // nearest segment point
    CHECK((x - foot).norm() == Approx(R + kDelta).epsilon(1e-14));
    CHECK(field.pressure[v] == Approx(-kE * kDelta / R).epsilon(1e-12));
    CHECK(FieldAt(field, foot + R * (x - foot).normalized()) == Approx(0).margin(1e-9 * kE));
  }
}

TEST_CASE("convex margin: zero on the original faces, skirt delta thick on the nearest face",
          "[compliant_meshes]") {
  geometry::ConvexMesh mesh;  // the box [0,1] x [0,2] x [0,4]: nearest faces 0.5 from the centre
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 2, 0}, {0, 2, 0},
                   {0, 0, 4}, {1, 0, 4}, {1, 2, 4}, {0, 2, 4}};
  mesh.triangles = {{0, 2, 1}, {0, 3, 2}, {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5},
                    {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}, {4, 5, 6}, {4, 6, 7}};
  PressureField field;
  std::string error;
  REQUIRE(MakeCompliantConvex(mesh, kE, kDelta, &field, &error));
  test::CheckWellFormed(field, kE);
  const Vector3d c(0.5, 1, 2);
  CHECK(FieldAt(field, c) == Approx(kE).epsilon(1e-12));
  // The x faces (0.5 from c) move out by delta, the others proportionally more.
  const double s = 1 + kDelta / 0.5;
  const test::FaceCheck faces = CheckFaces(field.mesh);
  for (size_t v = 0; v < field.mesh.vertices.size(); ++v)
    if (faces.on_boundary[v]) {
      CHECK((field.mesh.vertices[v] - c).cwiseAbs().isApprox(s * Vector3d(0.5, 1, 2), 1e-14));
      CHECK(field.pressure[v] == Approx(kE * (1 - s)).epsilon(1e-12));
    }
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int k = 0; k < 200; ++k) {
    Vector3d p(u(rng), 2 * u(rng), 4 * u(rng));
    const int axis = k % 3;
    p[axis] = (k / 3) % 2 == 0 ? 0.0 : Vector3d(1, 2, 4)[axis];  // onto a face
    CHECK(FieldAt(field, p) == Approx(0).margin(1e-9 * kE));
    p += 0.5 * kDelta * (p - c).normalized();
    CHECK(FieldAt(field, p) < 0.0);
  }
}

}  // namespace
}  // namespace csim::hydroelastic
