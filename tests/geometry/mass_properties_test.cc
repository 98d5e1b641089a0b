// Mass properties against textbook closed forms, an independent grid integration (capsule)
// and meshes of a cube read from OBJ and STL (engine/geometry/mass_properties.h).

#include "engine/geometry/mass_properties.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/geometry/mesh_file.h"
#include "engine/math/rotation.h"

namespace csim::geometry {
namespace {

constexpr double kPi = 3.14159265358979323846;

Geometry Shape(ShapeType type, const Eigen::Vector3d& size) {
  Geometry g;
  g.type = type;
  g.size = size;
  return g;
}

/// Checks inertia == diag(ixx, iyy, izz) to a relative tolerance.
void CheckDiagonal(const Eigen::Matrix3d& I, double ixx, double iyy, double izz,
                   double rel = 1e-12) {
  const Eigen::Matrix3d expected = Eigen::Vector3d(ixx, iyy, izz).asDiagonal();
  INFO("inertia\n" << I << "\nexpected\n" << expected);
  CHECK((I - expected).norm() <= rel * expected.norm());
}

ConvexMesh ReadFixture(const std::string& name, const Eigen::Vector3d& scale) {
  ConvexMesh mesh;
  std::string error;
  const bool ok =
      ReadMeshFile(std::string(CSIM_SOURCE_DIR) + "/tests/data/" + name, scale, &mesh, &error);
  INFO(error);
  REQUIRE(ok);
  return mesh;
}

TEST_CASE("sphere: V = 4/3 pi r^3, I = 2/5 m r^2", "[mass]") {
  const double r = 0.3;
  const MassProperties p = UnitShapeMassProperties(Shape(ShapeType::kSphere, {r, 0, 0}));
  CHECK(p.mass == Approx(4.0 / 3.0 * kPi * r * r * r));
  CHECK(p.com.norm() == 0.0);
  const double i = 0.4 * p.mass * r * r;
  CheckDiagonal(p.inertia, i, i, i);
}

TEST_CASE("box: V = abc, Ixx = m/12 (b^2 + c^2)", "[mass]") {
  const double a = 0.2, b = 0.5, c = 1.1;
  const MassProperties p = UnitShapeMassProperties(Shape(ShapeType::kBox, {a, b, c}));
  const double m = a * b * c;
  CHECK(p.mass == Approx(m));
  CheckDiagonal(p.inertia, m / 12 * (b * b + c * c), m / 12 * (a * a + c * c),
                m / 12 * (a * a + b * b));
}

TEST_CASE("cylinder along z: Izz = m r^2 / 2, Ixx = m (3 r^2 + L^2) / 12", "[mass]") {
  const double r = 0.1, L = 0.7;
  const MassProperties p = UnitShapeMassProperties(Shape(ShapeType::kCylinder, {r, L, 0}));
  const double m = kPi * r * r * L;
  CHECK(p.mass == Approx(m));
  const double t = m * (3 * r * r + L * L) / 12;
  CheckDiagonal(p.inertia, t, t, 0.5 * m * r * r);
}

TEST_CASE("ellipsoid: V = 4/3 pi abc, Ixx = m/5 (b^2 + c^2)", "[mass]") {
  const double a = 0.1, b = 0.2, c = 0.35;
  const MassProperties p = UnitShapeMassProperties(Shape(ShapeType::kEllipsoid, {a, b, c}));
  const double m = 4.0 / 3.0 * kPi * a * b * c;
  CHECK(p.mass == Approx(m));
  CheckDiagonal(p.inertia, m / 5 * (b * b + c * c), m / 5 * (a * a + c * c),
                m / 5 * (a * a + b * b));
}

TEST_CASE("capsule of zero length is a sphere", "[mass]") {
  const double r = 0.25;
  const MassProperties p = UnitShapeMassProperties(Shape(ShapeType::kCapsule, {r, 0, 0}));
  CHECK(p.mass == Approx(4.0 / 3.0 * kPi * r * r * r));
  const double i = 0.4 * p.mass * r * r;
  CheckDiagonal(p.inertia, i, i, i, 1e-12);
}

TEST_CASE("capsule matches a midpoint-rule integration of its solid", "[mass]") {
  const double r = 0.1, L = 0.3;
  const MassProperties p = UnitShapeMassProperties(Shape(ShapeType::kCapsule, {r, L, 0}));
  // Independent oracle: integrate over a grid of cells covering the capsule.
  const int n = 120;
  const double hx = 2 * r / n, hz = (L + 2 * r) / n, dv = hx * hx * hz;
  double m = 0, ixx = 0, izz = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const double x = -r + (i + 0.5) * hx, y = -r + (j + 0.5) * hx;
        const double z = -(L / 2 + r) + (k + 0.5) * hz;
        const double axial = std::max(0.0, std::abs(z) - L / 2);  // distance past a cap centre
        if (x * x + y * y + axial * axial > r * r) continue;
        m += dv;
        ixx += dv * (y * y + z * z);
        izz += dv * (x * x + y * y);
      }
  CHECK(p.mass == Approx(m).epsilon(5e-3));
  CHECK(p.inertia(0, 0) == Approx(ixx).epsilon(5e-3));
  CHECK(p.inertia(1, 1) == Approx(ixx).epsilon(5e-3));
  CHECK(p.inertia(2, 2) == Approx(izz).epsilon(5e-3));
  // And it is heavier and longer than the cylinder between its cap centres.
  const MassProperties cyl = UnitShapeMassProperties(Shape(ShapeType::kCylinder, {r, L, 0}));
  CHECK(p.inertia(0, 0) > cyl.inertia(0, 0));
}

TEST_CASE("a cube read from OBJ (quads, mixed winding) matches the box formula", "[mass]") {
  const ConvexMesh mesh = ReadFixture("unit_cube.obj", Eigen::Vector3d(2.0, 1.0, 0.5));
  CHECK(mesh.vertices.size() == 8);
  CHECK(mesh.triangles.size() == 12);
  const MassProperties p = UnitMeshMassProperties(mesh);
  const MassProperties box = UnitShapeMassProperties(Shape(ShapeType::kBox, {2.0, 1.0, 0.5}));
  CHECK(p.mass == Approx(1.0));
  CHECK((p.com - Eigen::Vector3d(1.0, 0.5, 0.25)).norm() < 1e-12);
  CHECK((p.inertia - box.inertia).norm() < 1e-12);
}

TEST_CASE("a cube read from ASCII and binary STL matches the box formula", "[mass]") {
  const ConvexMesh ascii = ReadFixture("unit_cube.stl", Eigen::Vector3d::Constant(3.0));
  CHECK(ascii.vertices.size() == 8);  // shared corners merged
  const MassProperties box = UnitShapeMassProperties(Shape(ShapeType::kBox, {3, 3, 3}));
  const MassProperties p = UnitMeshMassProperties(ascii);
  CHECK(p.mass == Approx(27.0));
  CHECK((p.com - Eigen::Vector3d::Constant(1.5)).norm() < 1e-12);
  CHECK((p.inertia - box.inertia).norm() < 1e-9);

  // Write the same triangles as a binary STL and read it back.
  const std::string path = "mass_properties_test_cube.stl";
  {
    std::ofstream out(path, std::ios::binary);
    const std::string header(80, ' ');
    out.write(header.data(), 80);
    const uint32_t count = ascii.triangles.size();
    out.write(reinterpret_cast<const char*>(&count), 4);
    for (const Eigen::Vector3i& t : ascii.triangles) {
      float record[12] = {0, 0, 0};
      for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) record[3 + 3 * k + c] = ascii.vertices[t[k]][c] / 3.0;
      out.write(reinterpret_cast<const char*>(record), 48);
      const uint16_t attributes = 0;
      out.write(reinterpret_cast<const char*>(&attributes), 2);
    }
  }
  ConvexMesh binary;
  std::string error;
  const bool ok = ReadMeshFile(path, Eigen::Vector3d::Ones(), &binary, &error);
  std::remove(path.c_str());
  INFO(error);
  REQUIRE(ok);
  CHECK(binary.vertices.size() == 8);
  CHECK(UnitMeshMassProperties(binary).mass == Approx(1.0));
}

TEST_CASE("an unreadable mesh file is reported", "[mass]") {
  ConvexMesh mesh;
  std::string error;
  CHECK_FALSE(ReadMeshFile("/nonexistent/cube.obj", Eigen::Vector3d::Ones(), &mesh, &error));
  CHECK(error.find("cannot read") != std::string::npos);
}

TEST_CASE("parallel-axis theorem when combining offset solids", "[mass]") {
  const double r = 0.1, d = 0.5;
  Geometry a = Shape(ShapeType::kSphere, {r, 0, 0});
  Geometry b = a;
  a.X_BG.p = Eigen::Vector3d(d, 0, 0);
  b.X_BG.p = Eigen::Vector3d(-d, 0, 0);
  const MassProperties p = UnitGeometryMassProperties({a, b});
  const double m = 4.0 / 3.0 * kPi * r * r * r;
  const double i = 0.4 * m * r * r;
  CHECK(p.mass == Approx(2 * m));
  CHECK(p.com.norm() < 1e-15);
  CheckDiagonal(p.inertia, 2 * i, 2 * (i + m * d * d), 2 * (i + m * d * d));

  // ShiftInertia back to the com of one sphere undoes the shift of the other.
  const Eigen::Matrix3d about_a = ShiftInertia(p.inertia, p.mass, p.com, a.X_BG.p);
  CHECK(about_a(1, 1) == Approx(2 * i + m * (2 * d) * (2 * d)));
}

TEST_CASE("visual-only geometry and halfspaces carry no mass", "[mass]") {
  Geometry visual = Shape(ShapeType::kBox, {1, 1, 1});
  visual.collide = false;
  const Geometry plane = Shape(ShapeType::kHalfspace, {0, 0, 0});
  CHECK(UnitGeometryMassProperties({visual, plane}).mass == 0.0);
}

TEST_CASE("rotated geometry: I_B = R I_G R^T, com rotated and shifted", "[mass]") {
  Geometry box = Shape(ShapeType::kBox, {0.1, 0.4, 0.9});
  const MassProperties local = UnitShapeMassProperties(box);
  box.X_BG.R = math::RotationFromRpy(Eigen::Vector3d(0.3, -0.7, 1.1));
  box.X_BG.p = Eigen::Vector3d(0.2, 0.0, -0.1);
  const MassProperties p = UnitGeometryMassProperties({box});
  const Eigen::Matrix3d R = box.X_BG.R;
  CHECK((p.inertia - R * local.inertia * R.transpose()).norm() < 1e-15);
  CHECK((p.com - box.X_BG.p).norm() < 1e-15);
  // A quarter turn about z swaps the x and y moments.
  box.X_BG.R = math::RotationFromRpy(Eigen::Vector3d(0, 0, kPi / 2));
  const MassProperties q = UnitGeometryMassProperties({box});
  CHECK(q.inertia(0, 0) == Approx(local.inertia(1, 1)));
  CHECK(q.inertia(1, 1) == Approx(local.inertia(0, 0)));
}

}  // namespace
}  // namespace csim::geometry
