// Soft-soft and soft-vs-compliant-half-space contact surfaces
// (engine/hydroelastic/field_intersection.h), checked against the reference geometry of
// tests/hydroelastic/reference_geometry.h (vertex enumeration, barycentric interpolation,
// Gauss quadrature), the closed form of docs/design/hydroelastic.md §4 f, and Newton's third
// law.

#include "engine/hydroelastic/field_intersection.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/hydroelastic/contact_polygon.h"
#include "engine/hydroelastic/polygon_clipping.h"
#include "tests/hydroelastic/reference_geometry.h"
#include "tests/hydroelastic/test_meshes.h"
#include "tests/support/allocation_counter.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;
using math::RigidTransform;
using test::HalfSpace;

constexpr double kMaxAngle = 5.0 * M_PI / 8.0;  // §2 d

/// Angle between two vectors [rad], pi/2 if either is zero.
double Angle(const Vector3d& u, const Vector3d& v) {
  if (u.norm() == 0.0 || v.norm() == 0.0) return M_PI / 2;
  return std::acos(std::clamp(u.normalized().dot(v.normalized()), -1.0, 1.0));
}

/// World-frame tet t of `field` at pose X_WG.
std::array<Vector3d, 4> WorldTet(const PressureField& field, int t, const RigidTransform& X_WG) {
  return test::MeshTet(field.mesh, t, [&](const Vector3d& x) { return X_WG * x; });
}

/// The field's pressure at world point x, interpolated in a tet that contains it (NaN if none).
double PressureAt(const PressureField& field, const RigidTransform& X_WG, const Vector3d& x_W) {
  const Vector3d x = X_WG.Inverse() * x_W;
  for (int t = 0; t < static_cast<int>(field.mesh.tets.size()); ++t) {
    const auto tet = test::MeshTet(field.mesh, t, [](const Vector3d& y) { return y; });
    if (test::Barycentric(tet, x).minCoeff() > -1e-9) return test::InterpolatedPressure(field, t, x);
  }
  return NAN;
}

/// Reference of one soft-soft tet pair in the world: whether the filters pass, the contact
/// normal (b - a)/|b - a| and the polygon (empty when rejected).
struct ReferencePair {
  bool accepted = false;
  Vector3d nhat;
  Vector3d a, b;  // world gradients [Pa/m]
  std::vector<Vector3d> polygon;
};

/// Both fields' world linear functions from their vertex values (not their gradient/offset).
void WorldLinearField(const PressureField& field, int t, const RigidTransform& X_WG, Vector3d* g,
                      double* c) {
  const auto x = WorldTet(field, t, X_WG);
  Eigen::Matrix4d M;
  Eigen::Vector4d p;
  for (int i = 0; i < 4; ++i) {
    M.row(i) << x[i].transpose(), 1.0;
    p[i] = field.pressure[field.mesh.tets[t][i]];
  }
  const Eigen::Vector4d s = M.fullPivLu().solve(p);
  *g = s.head<3>();
  *c = s[3];
}

ReferencePair ReferenceSoftSoft(const PressureField& A, int ta, const RigidTransform& X_WA,
                                const PressureField& B, int tb, const RigidTransform& X_WB) {
  ReferencePair r;
  double alpha, beta;
  WorldLinearField(A, ta, X_WA, &r.a, &alpha);
  WorldLinearField(B, tb, X_WB, &r.b, &beta);
  const Vector3d m = r.b - r.a;
  if (m.norm() == 0.0) return r;
  r.nhat = m.normalized();
  r.accepted = Angle(-r.nhat, r.a) <= kMaxAngle && Angle(r.nhat, r.b) <= kMaxAngle;
  if (!r.accepted) return r;
  std::vector<HalfSpace> halves = test::TetHalfSpaces(WorldTet(A, ta, X_WA));
  const auto more = test::TetHalfSpaces(WorldTet(B, tb, X_WB));
  halves.insert(halves.end(), more.begin(), more.end());
  r.polygon = test::ReferencePolygon(r.nhat, (beta - alpha) / m.norm(), halves);
  return r;
}

double Area(const std::vector<Vector3d>& polygon, const Vector3d& nhat) {
  return polygon.empty() ? 0.0 : test::ShoelaceArea(polygon, nhat);
}

/// A random linear single-tet field and pose.
PressureField RandomLinearTet(std::mt19937* engine) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::array<Vector3d, 4> x;
  while (true) {
    for (auto& v : x) v = 0.5 * Vector3d(u(*engine), u(*engine), u(*engine));
    if (std::abs((x[1] - x[0]).cross(x[2] - x[0]).dot(x[3] - x[0])) > 0.02) break;
  }
  return test::MakeLinearTetField(x, 1e5 * Vector3d(u(*engine), u(*engine), u(*engine)),
                                  2e4 * u(*engine));
}

TEST_CASE("Soft-soft: random linear tet pairs against the reference", "[hydroelastic]") {
  std::mt19937 engine(31);
  BvhCandidates candidates;
  PlacedTets placed;
  ContactSurface surface;
  int polygons = 0, rejected_by_filter = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const PressureField A = RandomLinearTet(&engine), B = RandomLinearTet(&engine);
    const RigidTransform X_WA = test::RandomPose(&engine, 0.1);
    const RigidTransform X_WB = test::RandomPose(&engine, 0.1);
    surface.Clear();
    AppendSoftSoftSurface(A, BuildBvh(A.mesh), X_WA, B, BuildBvh(B.mesh), X_WB, &candidates,
                          &placed, &surface);
    const ReferencePair r = ReferenceSoftSoft(A, 0, X_WA, B, 0, X_WB);
    rejected_by_filter += !r.accepted;
    const double area = Area(r.polygon, r.nhat);
    if (area < 1e-10) {  // no polygon, or one too thin to tell
      if (area == 0.0) CHECK(surface.polygons.empty());
      continue;
    }
    REQUIRE(surface.polygons.size() == 1);
    ++polygons;
    const ContactPolygon& p = surface.polygons[0];
    CHECK((p.normal - r.nhat).norm() < 1e-12);  // parallel to a - b, from A into B
    CHECK(p.area == Approx(area).epsilon(1e-9));
    CHECK((p.centroid - test::ReferenceCentroid(r.polygon)).norm() < 1e-9);
    const double integral = test::IntegrateOverPolygon(r.polygon, [&](const Vector3d& x) {
      return test::InterpolatedPressure(A, 0, X_WA.Inverse() * x);
    });
    CHECK(p.area * p.pressure == Approx(integral).epsilon(1e-8).margin(1e-9));
    CHECK(p.gradient_a == Approx(-r.a.dot(p.normal)).epsilon(1e-9).margin(1e-6));
    CHECK(p.gradient_b == Approx(r.b.dot(p.normal)).epsilon(1e-9).margin(1e-6));
    const auto tet_A = WorldTet(A, 0, X_WA), tet_B = WorldTet(B, 0, X_WB);
    for (int i = 0; i < p.num_vertices; ++i) {
      const Vector3d& v = surface.vertices[p.first_vertex + i];
      const double pa = test::InterpolatedPressure(A, 0, X_WA.Inverse() * v);
      const double pb = test::InterpolatedPressure(B, 0, X_WB.Inverse() * v);
      CHECK(pa == Approx(pb).margin(1e-9 * 1e5));  // equal pressures on the surface
      CHECK(surface.vertex_pressure[p.first_vertex + i] == Approx(pa).margin(1e-9 * 1e5));
      CHECK(test::Barycentric(tet_A, v).minCoeff() > -1e-10);
      CHECK(test::Barycentric(tet_B, v).minCoeff() > -1e-10);
      const Vector3d& w = surface.vertices[p.first_vertex + (i + 1) % p.num_vertices];
      const Vector3d& z = surface.vertices[p.first_vertex + (i + 2) % p.num_vertices];
      CHECK((w - v).cross(z - w).dot(p.normal) >= -1e-14);  // convex, counter-clockwise
    }
  }
  CHECK(polygons > 200);
  CHECK(rejected_by_filter > 100);
}

/// A random tet with vertices in `scale` [-1, 1]^3 and volume at least 0.01 scale^3.
TetVertices RandomTetVertices(std::mt19937* engine, double scale) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  while (true) {
    TetVertices t;
    for (auto& x : t) x = scale * Vector3d(u(*engine), u(*engine), u(*engine));
    if (std::abs((t[1] - t[0]).cross(t[2] - t[0]).dot(t[3] - t[0])) > 0.06 * std::pow(scale, 3))
      return t;
  }
}

/// Whether the soft-soft computation of one tet pair in one frame gives a polygon when every
/// candidate is sliced and clipped: the plane m . x + d = 0 slicing tet_A, clipped by tet_B,
/// kept by AppendContactPolygon (at least 3 distinct vertices, positive area).
bool GivesPolygon(const TetVertices& tet_A, const TetVertices& tet_B, const Vector3d& m,
                  double d) {
  ClipPolygon polygon;
  SliceTetByPlane(tet_A, m, d, &polygon);
  if (polygon.size == 0) return false;
  ClipPolygonByTet(tet_B, &polygon);
  ContactSurface surface;
  const Vector3d nhat = m.normalized();
  return AppendContactPolygon(&polygon, nhat, Vector3d::Zero(), 0.0, 1.0, 1.0, 1.0, 1.0,
                              RigidTransform(), &surface);
}

TEST_CASE("Soft-soft: the early rejections never drop a pair that gives a polygon",
          "[hydroelastic]") {
  // AppendSoftSoftSurface skips a tet pair before slicing when the equal-pressure plane does
  // not cut A's tet (PlaneCutsTet) or cannot meet B's (PlaneMayMeetTet). On random pairs, and
  // on pairs whose B tet is moved to touch the plane within a hair on either side, every pair
  // that the full slice and clip turn into a polygon passes both tests.
  std::mt19937 engine(61);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int polygons = 0, rejected_A = 0, rejected_B = 0, grazing_rejected = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const double scale = std::pow(10.0, 2.0 * u(engine));  // 0.01 to 100 m
    const TetVertices tet_A = RandomTetVertices(&engine, scale);
    TetVertices tet_B = RandomTetVertices(&engine, scale);
    const Vector3d m = std::pow(10.0, 6.0 + 2.0 * u(engine)) *
                       Vector3d(u(engine), u(engine), u(engine));  // (b - a) [Pa/m]
    const double d = -m.dot(scale * 0.5 * Vector3d(u(engine), u(engine), u(engine)));
    if (trial % 2 == 1) {
      // B's nearest vertex to the plane moved onto it, then off by a relative hair.
      double h_min = INFINITY;
      int nearest = 0;
      for (int i = 0; i < 4; ++i) {
        const double h = m.dot(tet_B[i]) + d;
        if (std::abs(h) < h_min) {
          h_min = std::abs(h);
          nearest = i;
        }
      }
      const double hair =  // 1e-16 to 1e-8, either side
          std::pow(10.0, -12.0 + 4.0 * u(engine)) * (u(engine) > 0.0 ? 1.0 : -1.0);
      const Vector3d shift = -(m.dot(tet_B[nearest]) + d) / m.squaredNorm() * m +
                             hair * scale * m.normalized();
      for (Vector3d& x : tet_B) x += shift;
    }
    // The sign test on A is SliceTetByPlane's own test.
    ClipPolygon slice;
    SliceTetByPlane(tet_A, m, d, &slice);
    CHECK(PlaneCutsTet(tet_A, m, d) == (slice.size > 0));
    const bool cuts_A = PlaneCutsTet(tet_A, m, d), meets_B = PlaneMayMeetTet(tet_B, m, d);
    rejected_A += !cuts_A;
    rejected_B += cuts_A && !meets_B;
    grazing_rejected += trial % 2 == 1 && !meets_B;
    if (GivesPolygon(tet_A, tet_B, m, d)) {
      ++polygons;
      INFO("trial " << trial);
      CHECK(cuts_A);
      CHECK(meets_B);
    }
  }
  CHECK(polygons > 1000);
  CHECK(rejected_A > 1000);
  CHECK(rejected_B > 1000);
  CHECK(grazing_rejected > 500);
}

TEST_CASE("Soft-soft: the 5 pi / 8 filters and equal gradients", "[hydroelastic]") {
  // Two copies of one tet. With b = a + lambda z, the plane normal is +z, and the angle of a
  // from -z is theta: the pair is kept for theta below 5 pi / 8 only.
  const std::array<Vector3d, 4> x = {Vector3d(0, 0, -0.1), Vector3d(0.3, 0, -0.1),
                                     Vector3d(0, 0.3, -0.1), Vector3d(0.1, 0.1, 0.3)};
  BvhCandidates candidates;
  PlacedTets placed;
  ContactSurface surface;
  auto count = [&](const Vector3d& a, const Vector3d& b) {
    const PressureField A = test::MakeLinearTetField(x, a, 0.0);
    const PressureField B = test::MakeLinearTetField(x, b, 0.0);
    surface.Clear();
    AppendSoftSoftSurface(A, BuildBvh(A.mesh), RigidTransform(), B, BuildBvh(B.mesh),
                          RigidTransform(), &candidates, &placed, &surface);
    return surface.polygons.size();
  };
  for (const double dtheta : {-0.01, 0.01}) {
    const double theta = kMaxAngle + dtheta;
    const Vector3d a = 1e4 * Vector3d(std::sin(theta), 0, -std::cos(theta));
    const Vector3d b = a + 1e6 * Vector3d::UnitZ();  // nearly along +z: B's filter passes
    CHECK(count(a, b) == (dtheta < 0 ? 1u : 0u));
    // The same for B's filter, with the roles of the two gradients mirrored.
    CHECK(count(-b, -a) == (dtheta < 0 ? 1u : 0u));
  }
  // Equal gradients: the fields never meet on a plane (or meet everywhere); nothing.
  CHECK(count(Vector3d(1e4, 2e4, 3e4), Vector3d(1e4, 2e4, 3e4)) == 0u);
}

/// Two jittered boxes with random interior pressures, overlapping at a random relative pose.
struct TwoBoxes {
  PressureField A, B;
  RigidTransform X_WA, X_WB;
};

TwoBoxes MakeTwoBoxes(unsigned seed) {
  std::mt19937 engine(seed);
  TwoBoxes s{test::MakeJitteredBoxField(Vector3d(0.3, 0.2, 0.15), Eigen::Vector3i(3, 3, 2), 1e5,
                                        0.12, seed),
             test::MakeJitteredBoxField(Vector3d(0.2, 0.25, 0.2), Eigen::Vector3i(3, 3, 3), 3e5,
                                        0.12, seed + 100),
             test::RandomPose(&engine, 0.1), test::RandomPose(&engine, 0.1)};
  return s;
}

TEST_CASE("Soft-soft: meshes, the force equals the pressure integral over the surface",
          "[hydroelastic]") {
  for (const unsigned seed : {41u, 42u, 43u}) {
    const TwoBoxes s = MakeTwoBoxes(seed);
    BvhCandidates candidates;
    PlacedTets placed;
    ContactSurface surface;
    AppendSoftSoftSurface(s.A, BuildBvh(s.A.mesh), s.X_WA, s.B, BuildBvh(s.B.mesh), s.X_WB,
                          &candidates, &placed, &surface);
    // A tet whose 4 vertices lie on the boundary has p = 0 throughout, and its plane with a tet
    // of the other body is that tet's zero level set, which can coincide with one of its
    // faces: such zero-pressure polygons are kept or lost by roundoff, and carry nothing. The
    // areas are compared over the polygons with pressure.
    const double kZero = 1e-6 * 1e5;  // [Pa]
    double force = 0.0, area = 0.0;  // sum A p0 [N], sum A [m^2] where p0 > kZero
    for (const ContactPolygon& p : surface.polygons) {
      force += p.area * p.pressure;
      if (p.pressure > kZero) area += p.area;
    }
    // Brute force over every tet pair, no BVH.
    double ref_force = 0.0, ref_area = 0.0;
    for (int ta = 0; ta < static_cast<int>(s.A.mesh.tets.size()); ++ta) {
      for (int tb = 0; tb < static_cast<int>(s.B.mesh.tets.size()); ++tb) {
        const ReferencePair r = ReferenceSoftSoft(s.A, ta, s.X_WA, s.B, tb, s.X_WB);
        if (r.polygon.empty()) continue;
        const double integral = test::IntegrateOverPolygon(r.polygon, [&](const Vector3d& x) {
          return test::InterpolatedPressure(s.A, ta, s.X_WA.Inverse() * x);
        });
        const double polygon_area = Area(r.polygon, r.nhat);
        ref_force += integral;
        if (integral > kZero * polygon_area) ref_area += polygon_area;
      }
    }
    INFO("seed " << seed << ", " << surface.polygons.size() << " polygons");
    CHECK(surface.polygons.size() > 50);
    CHECK(area == Approx(ref_area).epsilon(1e-9));
    CHECK(force == Approx(ref_force).epsilon(1e-9));
    // Every vertex has equal pressures in both meshes, interpolated where it lies.
    for (size_t v = 0; v < surface.vertices.size(); v += 7) {
      const double pa = PressureAt(s.A, s.X_WA, surface.vertices[v]);
      const double pb = PressureAt(s.B, s.X_WB, surface.vertices[v]);
      CHECK(pa == Approx(pb).margin(1e-6));
      CHECK(surface.vertex_pressure[v] == Approx(pa).margin(1e-6));
    }
  }
}

TEST_CASE("Soft-soft: swapping A and B gives the same polygons with opposite normals",
          "[hydroelastic]") {
  const TwoBoxes s = MakeTwoBoxes(44);
  const Bvh bvh_A = BuildBvh(s.A.mesh), bvh_B = BuildBvh(s.B.mesh);
  BvhCandidates candidates;
  PlacedTets placed;
  ContactSurface ab, ba;
  AppendSoftSoftSurface(s.A, bvh_A, s.X_WA, s.B, bvh_B, s.X_WB, &candidates, &placed, &ab);
  AppendSoftSoftSurface(s.B, bvh_B, s.X_WB, s.A, bvh_A, s.X_WA, &candidates, &placed, &ba);
  REQUIRE(ab.polygons.size() > 50);
  std::vector<bool> used(ba.polygons.size(), false);
  Vector3d force_ab = Vector3d::Zero(), force_ba = Vector3d::Zero();
  for (const ContactPolygon& p : ab.polygons) force_ab += p.area * p.pressure * p.normal;
  for (const ContactPolygon& q : ba.polygons) force_ba += q.area * q.pressure * q.normal;
  for (const ContactPolygon& p : ab.polygons) {
    // Slivers, and zero-pressure polygons on a tet face (see the test above), may differ.
    if (p.area < 1e-10 || p.pressure < 1e-6 * 1e5) continue;
    int match = -1;
    for (size_t j = 0; j < ba.polygons.size(); ++j) {
      if (!used[j] && (ba.polygons[j].centroid - p.centroid).norm() < 1e-9 &&
          std::abs(ba.polygons[j].area - p.area) < 1e-9 * (1 + p.area)) {
        match = static_cast<int>(j);
      }
    }
    REQUIRE(match >= 0);
    used[match] = true;
    const ContactPolygon& q = ba.polygons[match];
    CHECK((q.normal + p.normal).norm() < 1e-12);
    CHECK(q.num_vertices == p.num_vertices);
    CHECK(q.pressure == Approx(p.pressure).margin(1e-6));
    CHECK(q.gradient_a == Approx(p.gradient_b).epsilon(1e-12));
    CHECK(q.gradient_b == Approx(p.gradient_a).epsilon(1e-12));
  }
  CHECK((force_ab + force_ba).norm() < 1e-9 * force_ab.norm());
}

TEST_CASE("Soft vs compliant half-space: two linear foundations in series (notes §4 f)",
          "[hydroelastic]") {
  // A: the box [-a, a] x [-b, b] x [-h, h] with p_A = kA (z + h), zero on its bottom face. B:
  // the compliant half-space z <= s (s > -h), p_B = kB (s - z). They overlap by
  // delta = s + h; the plane sits where kA (z + h) = kB (s - z), with
  // p = delta kA kB / (kA + kB) over the whole cross-section 4ab.
  const double a = 0.2, b = 0.1, h = 0.05, kA = 2e6, kB = 5e6, s = -0.04;
  const PressureField A = test::MakeField(
      test::MakeBoxVolumeMesh(Vector3d(a, b, h), Eigen::Vector3i(3, 2, 2)),
      [&](const Vector3d& x) { return kA * (x.z() + h); }, kA * 2 * h);
  const CompliantHalfspace B{kB * 0.1, 0.1, 0.0};  // E / H = kB
  // A's frame is the world turned and moved; the half-space's plane is at z_W = s.
  const RigidTransform X_WA{math::RotationFromRpy(Vector3d(0, 0, 0.7)), Vector3d(0.3, -0.2, 0)};
  const RigidTransform X_WB{math::RotationFromRpy(Vector3d(0, 0, -1.1)), Vector3d(1, 2, s)};
  BvhCandidates candidates;
  ContactSurface surface;
  AppendSoftCompliantHalfspaceSurface(A, BuildBvh(A.mesh), X_WA, B, X_WB, &candidates, &surface);
  const double delta = s + h, p = delta * kA * kB / (kA + kB);
  const double z_plane = (kB * s - kA * h) / (kA + kB);
  double area = 0.0, force = 0.0, stiffness = 0.0;
  for (const ContactPolygon& q : surface.polygons) {
    CHECK((q.normal + Vector3d::UnitZ()).norm() < 1e-14);  // from A (above) into B (below)
    CHECK(q.centroid.z() == Approx(z_plane).epsilon(1e-12));
    CHECK(q.pressure == Approx(p).epsilon(1e-10));
    CHECK(q.gradient_a == Approx(kA).epsilon(1e-12));
    CHECK(q.gradient_b == Approx(kB).epsilon(1e-12));
    area += q.area;
    force += q.area * q.pressure;
    stiffness += q.area / (1 / q.gradient_a + 1 / q.gradient_b);
  }
  CHECK(area == Approx(4 * a * b).epsilon(1e-12));
  CHECK(force == Approx(4 * a * b * p).epsilon(1e-10));
  // d F / d delta = 4ab kA kB / (kA + kB): the springs in series of notes §3.
  CHECK(stiffness == Approx(4 * a * b * kA * kB / (kA + kB)).epsilon(1e-12));
}

TEST_CASE("Soft vs compliant half-space: random poses against the reference",
          "[hydroelastic]") {
  std::mt19937 engine(51);
  const PressureField A = test::MakeJitteredBoxField(Vector3d(0.3, 0.2, 0.15),
                                                     Eigen::Vector3i(3, 3, 2), 1e5, 0.12, 5);
  const Bvh bvh_A = BuildBvh(A.mesh);
  const CompliantHalfspace B{2e5, 0.05, 0.01};
  BvhCandidates candidates;
  ContactSurface surface;
  for (int trial = 0; trial < 4; ++trial) {
    const RigidTransform X_WA = test::RandomPose(&engine, 0.05);
    const RigidTransform X_WB = test::RandomPose(&engine, 0.05);
    surface.Clear();
    AppendSoftCompliantHalfspaceSurface(A, bvh_A, X_WA, B, X_WB, &candidates, &surface);
    // B's world field and region from its pose alone.
    const Vector3d n_W = X_WB.R.col(2);
    const double k = B.modulus / B.slab_thickness;
    auto p_B = [&](const Vector3d& x) { return -k * n_W.dot(x - X_WB.p); };
    const HalfSpace region{n_W, -n_W.dot(X_WB.p) - B.margin};
    double force = 0.0, ref_force = 0.0;
    for (const ContactPolygon& q : surface.polygons) {
      force += q.area * q.pressure;
      for (int i = 0; i < q.num_vertices; ++i) {
        const Vector3d& v = surface.vertices[q.first_vertex + i];
        CHECK(surface.vertex_pressure[q.first_vertex + i] == Approx(p_B(v)).margin(1e-6));
        CHECK(n_W.dot(v) + region.d < 1e-12);
      }
    }
    for (int t = 0; t < static_cast<int>(A.mesh.tets.size()); ++t) {
      Vector3d a;
      double alpha;
      WorldLinearField(A, t, X_WA, &a, &alpha);
      const Vector3d m = -k * n_W - a;  // b - a
      if (Angle(-m, a) > kMaxAngle || Angle(m, -n_W) > kMaxAngle) continue;
      std::vector<HalfSpace> halves = test::TetHalfSpaces(WorldTet(A, t, X_WA));
      halves.push_back(region);
      const double beta = k * n_W.dot(X_WB.p);
      const auto polygon = test::ReferencePolygon(m.normalized(), (beta - alpha) / m.norm(), halves);
      ref_force += test::IntegrateOverPolygon(polygon, [&](const Vector3d& x) { return p_B(x); });
    }
    INFO("trial " << trial << ", " << surface.polygons.size() << " polygons");
    CHECK(force == Approx(ref_force).epsilon(1e-9).margin(1e-9));
  }
}

TEST_CASE("Soft-soft: warmed-up computation does not allocate", "[hydroelastic]") {
  const TwoBoxes s = MakeTwoBoxes(45);
  const Bvh bvh_A = BuildBvh(s.A.mesh), bvh_B = BuildBvh(s.B.mesh);
  BvhCandidates candidates;
  PlacedTets placed;
  ContactSurface surface;
  AppendSoftSoftSurface(s.A, bvh_A, s.X_WA, s.B, bvh_B, s.X_WB, &candidates, &placed, &surface);
  REQUIRE(!surface.polygons.empty());
  const std::size_t before = testing::AllocationCount();
  surface.Clear();
  AppendSoftSoftSurface(s.A, bvh_A, s.X_WA, s.B, bvh_B, s.X_WB, &candidates, &placed, &surface);
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::hydroelastic
