// The polygon kernels (engine/hydroelastic/polygon_clipping.h) against hand cases and, on
// random tets, planes and triangles, against the vertex-enumeration reference of
// tests/hydroelastic/reference_geometry.h.

#include "engine/hydroelastic/polygon_clipping.h"

#include <algorithm>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/hydroelastic/reference_geometry.h"
#include "tests/support/allocation_counter.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;
using test::Barycentric;
using test::HalfSpace;
using test::ReferencePolygon;

/// Every fan triangle (v0, vi, vi+1) has area >= -tol about nhat: convex and counter-clockwise.
bool WindsCounterClockwise(const ClipPolygon& p, const Vector3d& nhat, double tol = 1e-14) {
  for (int i = 1; i + 1 < p.size; ++i) {
    if ((p.v[i] - p.v[0]).cross(p.v[i + 1] - p.v[0]).dot(nhat) < -tol) return false;
  }
  return true;
}

/// A random tet with vertices in [-1, 1]^3 and volume at least 0.02 m^3.
TetVertices RandomTet(std::mt19937* engine) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  while (true) {
    TetVertices t;
    for (auto& x : t) x = Vector3d(u(*engine), u(*engine), u(*engine));
    if (std::abs((t[1] - t[0]).cross(t[2] - t[0]).dot(t[3] - t[0])) > 0.12) return t;
  }
}

Vector3d RandomUnit(std::mt19937* engine) {
  std::normal_distribution<double> g;
  return Vector3d(g(*engine), g(*engine), g(*engine)).normalized();
}

TEST_CASE("Slice: a corner tet cut parallel to its base gives the scaled base triangle",
          "[hydroelastic]") {
  const TetVertices tet = {Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(0, 1, 0),
                           Vector3d(0, 0, 1)};
  for (const double c : {0.1, 0.5, 0.9}) {
    for (const double sign : {1.0, -1.0}) {
      // The plane z = c written with normal +z or -z.
      const Vector3d n = sign * Vector3d::UnitZ();
      ClipPolygon p;
      SliceTetByPlane(tet, n, -sign * c, &p);
      REQUIRE(p.size == 3);
      CHECK(WindsCounterClockwise(p, n));
      double area;
      Vector3d centroid;
      CalcAreaAndCentroid(p, n, &area, &centroid);
      // The section at height c is the right triangle with legs 1 - c.
      CHECK(area == Approx((1 - c) * (1 - c) / 2).epsilon(1e-13));
      CHECK((centroid - Vector3d((1 - c) / 3, (1 - c) / 3, c)).norm() < 1e-14);
    }
  }
}

TEST_CASE("Slice: a tet cut between its two opposite edges gives a square", "[hydroelastic]") {
  // Bottom edge along x at z = -1, top edge along y at z = +1: z = 0 cuts the 4 side edges at
  // their midpoints, the unit square centred on the z axis.
  const TetVertices tet = {Vector3d(-1, 0, -1), Vector3d(1, 0, -1), Vector3d(0, -1, 1),
                           Vector3d(0, 1, 1)};
  ClipPolygon p;
  SliceTetByPlane(tet, Vector3d::UnitZ(), 0.0, &p);
  REQUIRE(p.size == 4);
  CHECK(WindsCounterClockwise(p, Vector3d::UnitZ()));
  double area;
  Vector3d centroid;
  CalcAreaAndCentroid(p, Vector3d::UnitZ(), &area, &centroid);
  CHECK(area == Approx(1.0).epsilon(1e-14));
  CHECK(centroid.norm() < 1e-15);
  // A plane that misses the tet gives nothing.
  SliceTetByPlane(tet, Vector3d::UnitZ(), 1.5, &p);
  CHECK(p.size == 0);
}

TEST_CASE("Slice: random tets and planes match vertex enumeration", "[hydroelastic]") {
  std::mt19937 engine(11);
  std::uniform_real_distribution<double> u(-0.6, 0.6);
  int cut = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const TetVertices tet = RandomTet(&engine);
    const Vector3d nhat = RandomUnit(&engine);
    const double d = u(engine);
    ClipPolygon p;
    SliceTetByPlane(tet, 2.5 * nhat, 2.5 * d, &p);  // a non-unit normal: the same plane
    const auto reference = ReferencePolygon(nhat, d, test::TetHalfSpaces(tet));
    if (reference.empty()) {
      CHECK(p.size == 0);
      continue;
    }
    ++cut;
    REQUIRE(p.size >= 3);
    REQUIRE(p.size <= 4);
    CHECK(WindsCounterClockwise(p, nhat));
    for (int i = 0; i < p.size; ++i) {
      CHECK(std::abs(nhat.dot(p.v[i]) + d) < 1e-14);
      CHECK(Barycentric(tet, p.v[i]).minCoeff() > -1e-13);
    }
    double area;
    Vector3d centroid;
    CalcAreaAndCentroid(p, nhat, &area, &centroid);
    CHECK(area == Approx(test::ShoelaceArea(reference, nhat)).epsilon(1e-11));
    CHECK((centroid - test::ReferenceCentroid(reference)).norm() < 1e-12);
  }
  CHECK(cut > 500);
}

TEST_CASE("Clip by tet: hand cases", "[hydroelastic]") {
  const TetVertices tet = {Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(0, 1, 0),
                           Vector3d(0, 0, 1)};
  ClipPolygon p;
  SECTION("a triangle inside stays as it is") {
    p.size = 3;
    p.v[0] = Vector3d(0.1, 0.1, 0.1);
    p.v[1] = Vector3d(0.3, 0.1, 0.1);
    p.v[2] = Vector3d(0.1, 0.3, 0.2);
    const ClipPolygon before = p;
    ClipPolygonByTet(tet, &p);
    REQUIRE(p.size == 3);
    for (int i = 0; i < 3; ++i) CHECK(p.v[i] == before.v[i]);
  }
  SECTION("a triangle outside vanishes") {
    p.size = 3;
    p.v[0] = Vector3d(1, 1, 1);
    p.v[1] = Vector3d(2, 1, 1);
    p.v[2] = Vector3d(1, 2, 1);
    ClipPolygonByTet(tet, &p);
    CHECK(p.size == 0);
  }
  SECTION("a large triangle in the plane z = 0.25 becomes the tet's section there") {
    p.size = 3;
    p.v[0] = Vector3d(-5, -5, 0.25);
    p.v[1] = Vector3d(10, -5, 0.25);
    p.v[2] = Vector3d(-5, 10, 0.25);
    ClipPolygonByTet(tet, &p);
    RemoveNearDuplicateVertices(&p);
    REQUIRE(p.size == 3);
    CHECK(WindsCounterClockwise(p, Vector3d::UnitZ()));
    double area;
    Vector3d centroid;
    CalcAreaAndCentroid(p, Vector3d::UnitZ(), &area, &centroid);
    CHECK(area == Approx(0.75 * 0.75 / 2).epsilon(1e-14));
  }
}

TEST_CASE("Clip by tet: random triangles and plane slices match vertex enumeration",
          "[hydroelastic]") {
  std::mt19937 engine(12);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int nonempty = 0, max_size = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const TetVertices tet = RandomTet(&engine);
    ClipPolygon p;
    std::vector<HalfSpace> halves = test::TetHalfSpaces(tet);
    Vector3d nhat;
    double c;
    if (trial % 2 == 0) {
      // A random triangle: its plane, and its 3 edges as half-spaces of that plane.
      p.size = 3;
      for (int i = 0; i < 3; ++i) p.v[i] = 1.2 * Vector3d(u(engine), u(engine), u(engine));
      nhat = (p.v[1] - p.v[0]).cross(p.v[2] - p.v[0]);
      if (nhat.norm() < 0.1) continue;
      nhat.normalize();
      c = -nhat.dot(p.v[0]);
      for (int i = 0; i < 3; ++i) {
        const Vector3d out = (p.v[(i + 1) % 3] - p.v[i]).cross(nhat);
        halves.push_back({out, -out.dot(p.v[i])});
      }
    } else {
      // A slice of a second tet: the 8-vertex case.
      const TetVertices other = RandomTet(&engine);
      nhat = RandomUnit(&engine);
      c = 0.3 * u(engine);
      SliceTetByPlane(other, nhat, c, &p);
      const auto more = test::TetHalfSpaces(other);
      halves.insert(halves.end(), more.begin(), more.end());
    }
    ClipPolygonByTet(tet, &p);
    RemoveNearDuplicateVertices(&p);
    const auto reference = ReferencePolygon(nhat, c, halves);
    double area = 0.0;
    Vector3d centroid;
    if (p.size >= 3) CalcAreaAndCentroid(p, nhat, &area, &centroid);
    if (reference.empty()) {
      CHECK(area < 1e-12);
      continue;
    }
    ++nonempty;
    max_size = std::max(max_size, p.size);
    REQUIRE(p.size >= 3);
    CHECK(p.size <= (trial % 2 == 0 ? 7 : 8));
    CHECK(WindsCounterClockwise(p, nhat));
    for (int i = 0; i < p.size; ++i) {
      CHECK(Barycentric(tet, p.v[i]).minCoeff() > -1e-12);
      CHECK(std::abs(nhat.dot(p.v[i]) + c) < 1e-13);
    }
    CHECK(area == Approx(test::ShoelaceArea(reference, nhat)).epsilon(1e-10).margin(1e-14));
    if (area > 1e-6) CHECK((centroid - test::ReferenceCentroid(reference)).norm() < 1e-10);
  }
  CHECK(nonempty > 500);
  CHECK(max_size >= 6);
}

TEST_CASE("Clip by half-space: keeps the order, cuts on the plane", "[hydroelastic]") {
  // The square [0, 2]^2 cut by x <= 1 is the rectangle [0, 1] x [0, 2], area 2, centroid
  // (0.5, 1); the cut points lie on x = 1 and the winding stays counter-clockwise.
  ClipPolygon p;
  p.size = 4;
  p.v[0] = Vector3d(0, 0, 0);
  p.v[1] = Vector3d(2, 0, 0);
  p.v[2] = Vector3d(2, 2, 0);
  p.v[3] = Vector3d(0, 2, 0);
  ClipPolygonByHalfspace(Vector3d::UnitX(), -1.0, &p);
  REQUIRE(p.size == 4);
  CHECK(WindsCounterClockwise(p, Vector3d::UnitZ()));
  double area;
  Vector3d centroid;
  CalcAreaAndCentroid(p, Vector3d::UnitZ(), &area, &centroid);
  CHECK(area == Approx(2.0));
  CHECK((centroid - Vector3d(0.5, 1, 0)).norm() < 1e-15);
  // A vertex exactly on the plane is kept once, not duplicated.
  ClipPolygonByHalfspace(Vector3d::UnitX(), -1.0, &p);
  CHECK(p.size == 4);
}

TEST_CASE("Near-duplicate vertices are removed cyclically", "[hydroelastic]") {
  ClipPolygon p;
  p.size = 6;
  p.v[0] = Vector3d(0, 0, 0);
  p.v[1] = Vector3d(1e-14, 0, 0);
  p.v[2] = Vector3d(1, 0, 0);
  p.v[3] = Vector3d(1, 1, 0);
  p.v[4] = Vector3d(1, 1, 1e-13);
  p.v[5] = Vector3d(-1e-14, 1e-14, 0);
  RemoveNearDuplicateVertices(&p);
  REQUIRE(p.size == 3);
  CHECK(p.v[0] == Vector3d(0, 0, 0));
  CHECK(p.v[1] == Vector3d(1, 0, 0));
  CHECK(p.v[2] == Vector3d(1, 1, 0));
}

TEST_CASE("Area centroid is area-weighted, not the vertex mean", "[hydroelastic]") {
  // Trapezoid with bases 4 (y = 0) and 2 (y = 2): area 6, centroid height
  // h (b1 + 2 b2) / (3 (b1 + b2)) = 8/9, while the vertex mean is at height 1.
  ClipPolygon p;
  p.size = 4;
  p.v[0] = Vector3d(0, 0, 0);
  p.v[1] = Vector3d(4, 0, 0);
  p.v[2] = Vector3d(3, 2, 0);
  p.v[3] = Vector3d(1, 2, 0);
  double area;
  Vector3d centroid;
  CalcAreaAndCentroid(p, Vector3d::UnitZ(), &area, &centroid);
  CHECK(area == Approx(6.0));
  CHECK((centroid - Vector3d(2, 8.0 / 9.0, 0)).norm() < 1e-15);
  // Seen from the other side the winding is clockwise and the area negative.
  CalcAreaAndCentroid(p, -Vector3d::UnitZ(), &area, &centroid);
  CHECK(area == Approx(-6.0));
  ReverseWinding(&p);
  CalcAreaAndCentroid(p, -Vector3d::UnitZ(), &area, &centroid);
  CHECK(area == Approx(6.0));
}

TEST_CASE("The kernels do not allocate", "[hydroelastic]") {
  std::mt19937 engine(13);
  const TetVertices a = RandomTet(&engine), b = RandomTet(&engine);
  const std::size_t before = testing::AllocationCount();
  ClipPolygon p;
  SliceTetByPlane(a, Vector3d(0.3, 0.2, 1), 0.1, &p);
  ClipPolygonByTet(b, &p);
  RemoveNearDuplicateVertices(&p);
  double area;
  Vector3d centroid;
  CalcAreaAndCentroid(p, Vector3d(0.3, 0.2, 1).normalized(), &area, &centroid);
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::hydroelastic
