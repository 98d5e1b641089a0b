// The medial-axis and starburst meshes, whose linear fields are exact: box, cylinder (for its
// n-gon prism) and convex mesh. Volumes equal the meshed solid's to round-off, and the field at
// random interior points equals the scaled distance (or gauge) computed here from the shape.

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
using test::TetVolumes;

constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 2e6;  // modulus [Pa]

/// Calls check(p) at random points of [-extent, extent] for which inside(p) holds.
template <class Inside, class Check>
void AtRandomPoints(const Vector3d& extent, const Inside& inside, const Check& check) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int count = 0;
  while (count < 400) {
    const Vector3d p = extent.cwiseProduct(Vector3d(u(rng), u(rng), u(rng)));
    if (!inside(p)) continue;
    check(p);
    ++count;
  }
}

TEST_CASE("box: exact volume, E min distance / min half size everywhere", "[compliant_meshes]") {
  // Tet counts from the construction in compliant_meshes.h (4 triangles per face, a medial
  // rectangle for faces whose both in-plane half sizes exceed the smallest).
  struct Case {
    Vector3d size;
    size_t tets;
  };
  for (const Case& c : {Case{Vector3d(0.2, 0.2, 0.2), 24}, Case{Vector3d(0.1, 0.1, 0.3), 32},
                        Case{Vector3d(0.1, 0.2, 0.2), 44}, Case{Vector3d(0.3, 0.1, 0.2), 44},
                        Case{Vector3d(0.1, 0.3, 0.1), 32}}) {
    const PressureField field = MakeCompliantBox(c.size, kE, 0.0);
    test::CheckWellFormed(field, kE);
    CHECK(field.mesh.tets.size() == c.tets);
    CHECK(TetVolumes(field.mesh).second == Approx(c.size.prod()).epsilon(1e-12));
    const Vector3d half = c.size / 2;
    const double h = half.minCoeff();
    const test::FaceCheck faces = CheckFaces(field.mesh);
    for (size_t v = 0; v < field.mesh.vertices.size(); ++v)
      if (faces.on_boundary[v]) {
        CHECK((half - field.mesh.vertices[v].cwiseAbs()).minCoeff() == Approx(0).margin(1e-15));
        CHECK(field.pressure[v] == 0.0);
      }
    CHECK(FieldAt(field, Vector3d::Zero()) == Approx(kE).epsilon(1e-12));
    AtRandomPoints(half, [](const Vector3d&) { return true; }, [&](const Vector3d& p) {
      const double distance = (half - p.cwiseAbs()).minCoeff();
      bool consistent = false;
      CHECK(FieldAt(field, p, &consistent) == Approx(kE * distance / h).margin(1e-9 * kE));
      CHECK(consistent);
    });
  }
}

/// Distance from p to the nearest face of the n-gon prism (vertices at angles 2 pi i / n on
/// radius R, |z| <= L/2), side faces scaled by 1/cos(pi/n): the cylinder's exact field / E * H.
double ScaledPrismDistance(const Vector3d& p, double R, double L, int n) {
  double side = INFINITY;
  for (int i = 0; i < n; ++i) {
    const double a = 2 * kPi * (i + 0.5) / n;  // outward normal of side i
    side = std::min(side, R * std::cos(kPi / n) - (p.x() * std::cos(a) + p.y() * std::sin(a)));
  }
  return std::min(side / std::cos(kPi / n), L / 2 - std::abs(p.z()));
}

bool InsidePrism(const Vector3d& p, double R, double L, int n) {
  return ScaledPrismDistance(p, R, L, n) >= 0.0;
}

TEST_CASE("cylinder: notes' tet counts, exact n-gon prism volume and field", "[compliant_meshes]") {
  struct Case {
    double R, L, h;
    int tets_per_rim_vertex;  // notes §1: 5 when L/2 > R, 4 when L/2 = R, 9 when L/2 < R
  };
  for (const Case& c : {Case{0.015, 0.11, 0.005, 5}, Case{0.1, 0.2, 0.05, 4},
                        Case{0.1, 0.06, 0.1, 9}, Case{0.1, 0.3, 1.0, 5}}) {
    const PressureField field = MakeCompliantCylinder(c.R, c.L, kE, c.h, 0.0);
    test::CheckWellFormed(field, kE);
    const int n = std::max(3, static_cast<int>(std::ceil(2 * kPi * c.R / c.h)));
    CHECK(field.mesh.tets.size() == static_cast<size_t>(c.tets_per_rim_vertex * n));
    const double polygon_area = 0.5 * n * c.R * c.R * std::sin(2 * kPi / n);
    CHECK(TetVolumes(field.mesh).second == Approx(polygon_area * c.L).epsilon(1e-12));
    const double H = std::min(c.R, c.L / 2);
    const test::FaceCheck faces = CheckFaces(field.mesh);
    for (size_t v = 0; v < field.mesh.vertices.size(); ++v)
      if (faces.on_boundary[v]) {
        CHECK(ScaledPrismDistance(field.mesh.vertices[v], c.R, c.L, n) ==
              Approx(0).margin(1e-15));
        CHECK(field.pressure[v] == 0.0);
      }
    AtRandomPoints(
        Vector3d(c.R, c.R, c.L / 2), [&](const Vector3d& p) { return InsidePrism(p, c.R, c.L, n); },
        [&](const Vector3d& p) {
          bool consistent = false;
          CHECK(FieldAt(field, p, &consistent) ==
                Approx(kE * ScaledPrismDistance(p, c.R, c.L, n) / H).margin(1e-9 * kE));
          CHECK(consistent);
        });
  }
  // The spatula's handle (notes §6): r = 0.015, L = 0.11, hint 0.005 -> n = 19, 95 tets.
  CHECK(MakeCompliantCylinder(0.015, 0.11, kE, 0.005, 0.0).mesh.tets.size() == 95);
}

/// An octahedron with unequal arms, outward CCW: arms +x 2, -x 1, +y 1.5, -y 0.5, +z 1, -z 3
/// [m]. Volume (2+1)(1.5+0.5)(1+3)/6 = 4 m^3 (8 corner tets x y z / 6).
geometry::ConvexMesh SkewOctahedron() {
  geometry::ConvexMesh mesh;
  mesh.vertices = {{2, 0, 0}, {-1, 0, 0}, {0, 1.5, 0}, {0, -0.5, 0}, {0, 0, 1}, {0, 0, -3}};
  const int px = 0, nx = 1, py = 2, ny = 3, pz = 4, nz = 5;
  mesh.triangles = {{px, py, pz}, {py, nx, pz}, {nx, ny, pz}, {ny, px, pz},
                    {py, px, nz}, {nx, py, nz}, {ny, nx, nz}, {px, ny, nz}};
  return mesh;
}

TEST_CASE("convex starburst: one tet per face, field E (1 - gauge about the centroid)",
          "[compliant_meshes]") {
  const geometry::ConvexMesh mesh = SkewOctahedron();
  PressureField field;
  std::string error;
  REQUIRE(MakeCompliantConvex(mesh, kE, 0.0, &field, &error));
  test::CheckWellFormed(field, kE);
  CHECK(field.mesh.tets.size() == 8);
  CHECK(TetVolumes(field.mesh).second == Approx(4.0).epsilon(1e-12));
  // Centroid: the 8 corner tets (origin, three arm tips), weighted by volume.
  Vector3d c = Vector3d::Zero();
  for (const auto& t : mesh.triangles) {
    const Vector3d &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &d = mesh.vertices[t[2]];
    c += a.dot(b.cross(d)) / 6.0 * (a + b + d) / 4.0;
  }
  c /= 4.0;
  CHECK(FieldAt(field, c) == Approx(kE).epsilon(1e-12));
  for (const Vector3d& v : mesh.vertices) CHECK(FieldAt(field, v) == Approx(0).margin(1e-9 * kE));
  // Gauge of the octahedron about c: max over faces of n_f.(x - c) / h_f.
  auto gauge = [&](const Vector3d& p) {
    double g = -INFINITY;
    for (const auto& t : mesh.triangles) {
      const Vector3d &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &d = mesh.vertices[t[2]];
      const Vector3d n = (b - a).cross(d - a).normalized();
      g = std::max(g, n.dot(p - c) / n.dot(a - c));
    }
    return g;
  };
  AtRandomPoints(
      Vector3d(2, 1.5, 3), [&](const Vector3d& p) { return gauge(p) <= 1.0; },
      [&](const Vector3d& p) {
        bool consistent = false;
        CHECK(FieldAt(field, p, &consistent) == Approx(kE * (1 - gauge(p))).margin(1e-9 * kE));
        CHECK(consistent);
      });
}

TEST_CASE("convex starburst merges repeated vertices and rejects open or dented meshes",
          "[compliant_meshes]") {
  PressureField field;
  std::string error;
  // A seam: the +z tip repeated for two of its triangles.
  geometry::ConvexMesh seam = SkewOctahedron();
  seam.vertices.push_back(seam.vertices[4]);
  seam.triangles[0][2] = 6;
  seam.triangles[1][2] = 6;
  REQUIRE(MakeCompliantConvex(seam, kE, 0.0, &field, &error));
  CHECK(CheckFaces(field.mesh).bad_boundary_edges == 0);
  CHECK(field.mesh.vertices.size() == 7);  // 6 merged tips + the centroid

  geometry::ConvexMesh open = SkewOctahedron();
  open.triangles.pop_back();
  CHECK_FALSE(MakeCompliantConvex(open, kE, 0.0, &field, &error));
  CHECK(error.find("closed") != std::string::npos);

  // The cube [-1,1]^3 whose +z face is 4 triangles about its centre pushed down to z = -0.9.
  geometry::ConvexMesh dented;
  dented.vertices = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                     {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}, {0, 0, -0.9}};
  dented.triangles = {{0, 2, 1}, {0, 3, 2}, {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5},
                      {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}, {4, 5, 8}, {5, 6, 8},
                      {6, 7, 8}, {7, 4, 8}};
  CHECK_FALSE(MakeCompliantConvex(dented, kE, 0.0, &field, &error));
  CHECK(error.find("not convex") != std::string::npos);
}

}  // namespace
}  // namespace csim::hydroelastic
