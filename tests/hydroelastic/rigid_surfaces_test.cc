// Rigid surface meshes: closed and consistently wound outward (every directed edge has one
// reverse twin, positive enclosed volume equal to the shape's or converging to it), unit
// normals pointing away from the centre, vertices on the shape.

#include "engine/hydroelastic/rigid_surfaces.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;

constexpr double kPi = 3.14159265358979323846;

/// Checks winding and normals; returns the enclosed volume (divergence theorem) [m^3].
double CheckClosedOutward(const SurfaceMesh& mesh) {
  std::map<std::pair<int, int>, int> directed;
  double volume = 0.0;
  REQUIRE(mesh.normals.size() == mesh.triangles.size());
  for (size_t f = 0; f < mesh.triangles.size(); ++f) {
    const Eigen::Vector3i& t = mesh.triangles[f];
    const Vector3d &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &c = mesh.vertices[t[2]];
    for (int e = 0; e < 3; ++e) ++directed[{t[e], t[(e + 1) % 3]}];
    volume += a.dot(b.cross(c)) / 6.0;
    CHECK(mesh.normals[f].norm() == Approx(1.0).epsilon(1e-14));
    CHECK(mesh.normals[f].dot((b - a).cross(c - a).normalized()) == Approx(1.0).epsilon(1e-12));
    CHECK(mesh.normals[f].dot(a + b + c) > 0.0);  // every shape here is star-shaped about 0
  }
  int bad = 0;
  for (const auto& [edge, n] : directed) {
    const auto twin = directed.find({edge.second, edge.first});
    if (n != 1 || twin == directed.end() || twin->second != 1) ++bad;
  }
  CHECK(bad == 0);
  CHECK(volume > 0.0);
  return volume;
}

TEST_CASE("rigid box: 4 triangles per face about its centre, exact volume", "[rigid_surfaces]") {
  const Vector3d size(0.1, 0.2, 0.3);
  const SurfaceMesh mesh = MakeRigidBox(size);
  CHECK(mesh.vertices.size() == 14);
  CHECK(mesh.triangles.size() == 24);
  CHECK(CheckClosedOutward(mesh) == Approx(size.prod()).epsilon(1e-12));
  for (const Vector3d& v : mesh.vertices)
    CHECK((size / 2 - v.cwiseAbs()).minCoeff() == Approx(0).margin(1e-15));
}

TEST_CASE("rigid sphere and ellipsoid lie on their shapes and converge", "[rigid_surfaces]") {
  const double R = 0.05;
  double previous = 0.0;
  for (double h : {0.02, 0.01, 0.005}) {
    const SurfaceMesh mesh = MakeRigidSphere(R, h);
    for (const Vector3d& v : mesh.vertices) CHECK(v.norm() == Approx(R).epsilon(1e-14));
    const double error = 4.0 / 3.0 * kPi * R * R * R - CheckClosedOutward(mesh);
    if (previous > 0.0) CHECK(previous / error == Approx(4.0).epsilon(0.1));
    previous = error;
  }
  CHECK(MakeRigidSphere(R, 0.02).triangles.size() == 128);  // 8 * 4^2, notes §1
  const Vector3d axes(0.02, 0.03, 0.05);
  const SurfaceMesh ellipsoid = MakeRigidEllipsoid(axes, 0.005);
  for (const Vector3d& v : ellipsoid.vertices)
    CHECK(v.cwiseQuotient(axes).norm() == Approx(1.0).epsilon(1e-14));
  CHECK(CheckClosedOutward(ellipsoid) == Approx(4.0 / 3.0 * kPi * axes.prod()).epsilon(0.02));
}

TEST_CASE("rigid cylinder: two n-gon rims, the polygon prism's volume", "[rigid_surfaces]") {
  const double R = 0.1, L = 0.05, h = 0.03;
  const int n = static_cast<int>(std::ceil(2 * kPi * R / h));
  const SurfaceMesh mesh = MakeRigidCylinder(R, L, h);
  CHECK(mesh.vertices.size() == static_cast<size_t>(2 * n + 2));
  CHECK(mesh.triangles.size() == static_cast<size_t>(4 * n));
  CHECK(CheckClosedOutward(mesh) ==
        Approx(0.5 * n * R * R * std::sin(2 * kPi / n) * L).epsilon(1e-12));
  for (const Vector3d& v : mesh.vertices) {
    const double r = std::hypot(v.x(), v.y());
    CHECK(((r == Approx(R).epsilon(1e-14)) || (r == Approx(0).margin(1e-15))));
    CHECK(std::abs(v.z()) == Approx(L / 2).epsilon(1e-14));
  }
}

TEST_CASE("rigid capsule lies at distance R from its segment", "[rigid_surfaces]") {
  const double R = 0.02, L = 0.1;
  const SurfaceMesh mesh = MakeRigidCapsule(R, L, 0.004);
  for (const Vector3d& v : mesh.vertices) {
    const Vector3d foot(0, 0, std::clamp(v.z(), -L / 2, L / 2));
    CHECK((v - foot).norm() == Approx(R).epsilon(1e-14));
  }
  const double volume = kPi * R * R * L + 4.0 / 3.0 * kPi * R * R * R;
  CHECK(CheckClosedOutward(mesh) == Approx(volume).epsilon(0.02));
}

TEST_CASE("rigid convex mesh keeps its triangles, and a half-space has no mesh", "[rigid_surfaces]") {
  geometry::Geometry g;
  g.type = geometry::ShapeType::kMesh;
  g.mesh.vertices = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  g.mesh.triangles = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                      {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  SurfaceMesh mesh;
  std::string error;
  REQUIRE(MakeRigidSurface(g, 0.01, &mesh, &error));
  CHECK(mesh.triangles == g.mesh.triangles);
  CHECK(CheckClosedOutward(mesh) == Approx(4.0 / 3.0).epsilon(1e-12));  // 8 x 1/6
  g.type = geometry::ShapeType::kHalfspace;
  CHECK_FALSE(MakeRigidSurface(g, 0.01, &mesh, &error));
  CHECK_FALSE(error.empty());
}

}  // namespace
}  // namespace csim::hydroelastic
