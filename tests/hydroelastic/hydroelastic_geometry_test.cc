// The hydroelastic representation of a geometry and the pair dispatch
// (engine/hydroelastic/hydroelastic_geometry.h): what each shape and compliance builds and
// refuses, which pairs get a surface, Newton's third law through the dispatch (a pair and
// its swap give the same surface with opposite normals and swapped gradients), the
// conventions of contact_surface.h on every pair kind, the triangle split against the exact
// (medial-axis) box field, and that warmed-up calls do not allocate.
// The closed-form force laws are in closed_forms_test.cc.

#include "engine/hydroelastic/hydroelastic_geometry.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/hydroelastic/compliant_meshes.h"
#include "tests/hydroelastic/reference_geometry.h"
#include "tests/hydroelastic/test_meshes.h"
#include "tests/support/allocation_counter.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;
using geometry::Compliance;
using geometry::ShapeType;
using math::RigidTransform;

geometry::Geometry MakeShape(ShapeType type, const Vector3d& size, Compliance compliance,
                             double hint = 0.0, double margin = 0.0, double slab = 0.0) {
  geometry::Geometry g;
  g.type = type;
  g.size = size;
  g.hydroelastic.compliance = compliance;
  g.hydroelastic.resolution_hint = hint;
  g.hydroelastic.margin = margin;
  g.hydroelastic.slab_thickness = slab;
  return g;
}

HydroelasticGeometry Make(const geometry::Geometry& g, double modulus) {
  HydroelasticGeometry out;
  std::string error;
  INFO(error);
  REQUIRE(MakeHydroelasticGeometry(g, modulus, &out, &error));
  return out;
}

/// The unit cube [0, 1]^3 as 12 outward triangles (a ConvexMesh as the loader gives it).
geometry::ConvexMesh UnitCubeMesh() {
  const SurfaceMesh box = test::MakeBoxSurface(Vector3d(0.5, 0.5, 0.5));
  geometry::ConvexMesh mesh;
  for (const Vector3d& v : box.vertices) mesh.vertices.push_back(v + Vector3d::Constant(0.5));
  mesh.triangles = box.triangles;
  return mesh;
}

/// Sum over the polygons of A p n [N] (the force on b, which the pressure pushes along +n).
Vector3d Force(const ContactSurface& s) {
  Vector3d f = Vector3d::Zero();
  for (const ContactPolygon& p : s.polygons) f += p.area * p.pressure * p.normal;
  return f;
}

/// Sum of (c - o) x A p n [N m] about the point o.
Vector3d Moment(const ContactSurface& s, const Vector3d& o) {
  Vector3d m = Vector3d::Zero();
  for (const ContactPolygon& p : s.polygons)
    m += (p.centroid - o).cross(p.area * p.pressure * p.normal);
  return m;
}

/// Every polygon winds counter-clockwise about its unit normal and lies in its plane.
void CheckWinding(const ContactSurface& s) {
  for (const ContactPolygon& p : s.polygons) {
    REQUIRE(p.num_vertices >= 3);
    CHECK(std::abs(p.normal.norm() - 1.0) < 1e-14);
    const Vector3d& v0 = s.vertices[p.first_vertex];
    double twice_area = 0.0;
    for (int i = 1; i + 1 < p.num_vertices; ++i) {
      const Vector3d& v1 = s.vertices[p.first_vertex + i];
      const Vector3d& v2 = s.vertices[p.first_vertex + i + 1];
      twice_area += (v1 - v0).cross(v2 - v0).dot(p.normal);
    }
    CHECK(0.5 * twice_area == Approx(p.area).epsilon(1e-9));
  }
}

TEST_CASE("MakeHydroelasticGeometry: what each shape and compliance builds",
          "[hydroelastic]") {
  const double E = 1e5;
  SECTION("compliant sphere: the sparse mesh of its hint, a BVH over its tets") {
    const auto h = Make(MakeShape(ShapeType::kSphere, Vector3d(0.05, 0, 0),
                                  Compliance::kCompliant, 0.01),
                        E);
    CHECK(h.IsCompliantMesh());
    CHECK(h.field.mesh.tets.size() == 512);  // notes §1: R = 5 cm, h = 1 cm
    CHECK(h.bvh.nodes.size() == 2 * 512 - 1);
    CHECK(h.field.modulus == E);
  }
  SECTION("compliant box with margin: p < 0 on the inflated surface") {
    const auto h = Make(MakeShape(ShapeType::kBox, Vector3d(0.2, 0.2, 0.2),
                                  Compliance::kCompliant, 0.0, 1e-3),
                        E);
    CHECK(h.IsCompliantMesh());
    double lowest = 0.0;
    for (double p : h.field.pressure) lowest = std::min(lowest, p);
    CHECK(lowest == Approx(-E * 1e-3 / 0.1).epsilon(1e-12));  // -E delta / H (notes §1)
  }
  SECTION("compliant convex mesh: the starburst, one tet per hull triangle") {
    geometry::Geometry g = MakeShape(ShapeType::kMesh, Vector3d::Zero(), Compliance::kCompliant);
    g.mesh = UnitCubeMesh();
    const auto h = Make(g, E);
    CHECK(h.field.mesh.tets.size() == 12);
  }
  SECTION("rigid shapes: a surface mesh and its BVH; a rigid half-space nothing") {
    const auto box = Make(MakeShape(ShapeType::kBox, Vector3d(0.2, 0.1, 0.1),
                                    Compliance::kRigid), 0.0);
    CHECK(box.IsRigidMesh());
    CHECK(box.surface.triangles.size() == 24);  // 4 per face about its centre
    CHECK(box.bvh.nodes.size() == 2 * 24 - 1);
    const auto plane = Make(MakeShape(ShapeType::kHalfspace, Vector3d::Zero(),
                                      Compliance::kRigid), 0.0);
    CHECK(plane.IsRigidHalfspace());
    CHECK(plane.bvh.nodes.empty());
  }
  SECTION("compliant half-space: E, H and margin") {
    const auto h = Make(MakeShape(ShapeType::kHalfspace, Vector3d::Zero(),
                                  Compliance::kCompliant, 0.0, 2e-3, 0.1),
                        E);
    CHECK(h.IsCompliantHalfspace());
    CHECK(h.halfspace.PressurePerDepth() == Approx(E / 0.1));
    CHECK(h.halfspace.margin == 2e-3);
  }
  SECTION("no hydroelastic block: an empty representation") {
    const auto h = Make(MakeShape(ShapeType::kSphere, Vector3d(0.1, 0, 0), Compliance::kNone),
                        E);
    CHECK(h.compliance == Compliance::kNone);
    CHECK(h.field.mesh.tets.empty());
  }
}

TEST_CASE("MakeHydroelasticGeometry: refused inputs carry a reason", "[hydroelastic]") {
  HydroelasticGeometry out;
  std::string error;
  SECTION("a non-convex mesh cannot be starburst-meshed") {
    geometry::Geometry g = MakeShape(ShapeType::kMesh, Vector3d::Zero(), Compliance::kCompliant);
    g.mesh = UnitCubeMesh();
    // Push one corner inside past the centroid's planes: a dent, the triangles still closed.
    for (Vector3d& v : g.mesh.vertices)
      if (v == Vector3d(1, 1, 1)) v = Vector3d(0.3, 0.3, 0.3);
    CHECK_FALSE(MakeHydroelasticGeometry(g, 1e5, &out, &error));
    CHECK(error.find("convex") != std::string::npos);
  }
  SECTION("an open mesh") {
    geometry::Geometry g = MakeShape(ShapeType::kMesh, Vector3d::Zero(), Compliance::kCompliant);
    g.mesh = UnitCubeMesh();
    g.mesh.triangles.pop_back();
    CHECK_FALSE(MakeHydroelasticGeometry(g, 1e5, &out, &error));
    CHECK(error.find("closed") != std::string::npos);
  }
  SECTION("a compliant geometry without modulus") {
    CHECK_FALSE(MakeHydroelasticGeometry(
        MakeShape(ShapeType::kBox, Vector3d(1, 1, 1), Compliance::kCompliant), 0.0, &out,
        &error));
    CHECK(error.find("modulus") != std::string::npos);
  }
  SECTION("a curved shape without hint") {
    CHECK_FALSE(MakeHydroelasticGeometry(
        MakeShape(ShapeType::kCylinder, Vector3d(0.1, 0.2, 0), Compliance::kRigid), 0.0, &out,
        &error));
    CHECK(error.find("resolution_hint") != std::string::npos);
  }
  SECTION("a compliant half-space without slab thickness") {
    CHECK_FALSE(MakeHydroelasticGeometry(
        MakeShape(ShapeType::kHalfspace, Vector3d::Zero(), Compliance::kCompliant), 1e5, &out,
        &error));
    CHECK(error.find("slab_thickness") != std::string::npos);
  }
  SECTION("a volume mesh: margin refused, margin 0 accepted") {
    const VolumeMesh mesh = MakeCompliantBox(Vector3d(0.2, 0.2, 0.2), 1.0, 0.0).mesh;
    CHECK_FALSE(MakeHydroelasticGeometryFromVolume(mesh, 1e5, 1e-3, &out, &error));
    CHECK(error.find("margin") != std::string::npos);
    REQUIRE(MakeHydroelasticGeometryFromVolume(mesh, 1e5, 0.0, &out, &error));
    CHECK(out.IsCompliantMesh());
    CHECK(out.bvh.nodes.size() == 2 * out.field.mesh.tets.size() - 1);
    double highest = 0.0;
    for (double p : out.field.pressure) highest = std::max(highest, p);
    CHECK(highest == Approx(1e5));  // E at the deepest vertex
  }
}

TEST_CASE("HasContactSurface: the pair table", "[hydroelastic]") {
  const double E = 1e5;
  const auto soft = Make(MakeShape(ShapeType::kSphere, Vector3d(0.05, 0, 0),
                                   Compliance::kCompliant, 0.05), E);
  const auto rigid = Make(MakeShape(ShapeType::kBox, Vector3d(0.1, 0.1, 0.1),
                                    Compliance::kRigid), E);
  const auto soft_plane = Make(MakeShape(ShapeType::kHalfspace, Vector3d::Zero(),
                                         Compliance::kCompliant, 0, 0, 0.1), E);
  const auto rigid_plane = Make(MakeShape(ShapeType::kHalfspace, Vector3d::Zero(),
                                          Compliance::kRigid), E);
  const auto none = Make(MakeShape(ShapeType::kSphere, Vector3d(0.05, 0, 0),
                                   Compliance::kNone), E);
  const HydroelasticGeometry* all[] = {&soft, &rigid, &soft_plane, &rigid_plane, &none};
  // Expected: rows and columns in the order of `all`.
  const bool expected[5][5] = {{true, true, true, true, false},
                               {true, false, true, false, false},
                               {true, true, false, false, false},
                               {true, false, false, false, false},
                               {false, false, false, false, false}};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      INFO(i << ", " << j);
      CHECK(HasContactSurface(*all[i], *all[j]) == expected[i][j]);
    }
}

/// The computable pair kinds, each as (a, b) with a the computation's A, at poses where they
/// overlap, built once.
struct PairFixture {
  HydroelasticGeometry sphere, box, soft_plane, rigid_box, rigid_plane;
  PairFixture() {
    sphere = Make(MakeShape(ShapeType::kSphere, Vector3d(0.05, 0, 0), Compliance::kCompliant,
                            0.02), 2e5);
    box = Make(MakeShape(ShapeType::kBox, Vector3d(0.12, 0.1, 0.08), Compliance::kCompliant),
               1e5);
    soft_plane = Make(MakeShape(ShapeType::kHalfspace, Vector3d::Zero(), Compliance::kCompliant,
                                0, 0, 0.05), 3e5);
    rigid_box = Make(MakeShape(ShapeType::kBox, Vector3d(0.1, 0.08, 0.06), Compliance::kRigid),
                     0);
    rigid_plane = Make(MakeShape(ShapeType::kHalfspace, Vector3d::Zero(), Compliance::kRigid),
                       0);
  }
};

TEST_CASE("CalcContactSurface: Newton's third law through the dispatch, every pair kind",
          "[hydroelastic]") {
  const PairFixture f;
  std::mt19937 engine(901);
  ContactSurfaceScratch scratch;
  ContactSurface ab, ba;
  // b at a random orientation, its origin `distance` from a's along a random direction, or,
  // for a half-space b, with its plane `distance` below a's origin: shallow contacts (a
  // rigid body embedded deep in a soft one would be filtered out, §2 a step 2).
  struct Case {
    const char* name;
    const HydroelasticGeometry* a;
    const HydroelasticGeometry* b;
    double distance;  // [m]
    bool soft_soft;
  };
  const Case cases[] = {{"soft-soft", &f.sphere, &f.box, 0.07, true},
                        {"soft-compliant halfspace", &f.sphere, &f.soft_plane, 0.03, false},
                        {"soft-rigid mesh", &f.sphere, &f.rigid_box, 0.065, false},
                        {"soft-rigid halfspace", &f.box, &f.rigid_plane, 0.03, false},
                        {"compliant halfspace-rigid mesh", &f.soft_plane, &f.rigid_box, 0.02,
                         false}};
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const Case& c : cases) {
    for (int trial = 0; trial < 4; ++trial) {
      INFO(c.name << ", trial " << trial);
      const RigidTransform X_WA = test::RandomPose(&engine, 0.5);
      RigidTransform X_AB = test::RandomPose(&engine, 0.0);
      if (c.b->is_halfspace) {
        X_AB.p = -c.distance * X_AB.R.col(2);
      } else if (c.a->is_halfspace) {
        X_AB.p = Vector3d(0.01 * normal(engine), 0.01 * normal(engine), c.distance);
      } else {
        X_AB.p = c.distance * Vector3d(normal(engine), normal(engine), normal(engine)).normalized();
      }
      const RigidTransform X_WB = X_WA * X_AB;
      CalcContactSurface(*c.a, X_WA, *c.b, X_WB, &scratch, &ab);
      CalcContactSurface(*c.b, X_WB, *c.a, X_WA, &scratch, &ba);
      REQUIRE(ab.polygons.size() > 3);
      CheckWinding(ab);
      CheckWinding(ba);
      const double scale = Force(ab).norm();
      CHECK((Force(ab) + Force(ba)).norm() < 1e-10 * scale);
      CHECK((Moment(ab, X_WA.p) + Moment(ba, X_WA.p)).norm() < 1e-10 * scale * 0.1);
      if (c.soft_soft) {
        // Sliced by the other body's tets first: the same surface in other polygons.
        double area_ab = 0.0, area_ba = 0.0;
        for (const ContactPolygon& p : ab.polygons) area_ab += p.area;
        for (const ContactPolygon& p : ba.polygons) area_ba += p.area;
        CHECK(area_ab == Approx(area_ba).epsilon(1e-10));
        continue;
      }
      // One computation, mirrored: polygon by polygon.
      REQUIRE(ab.polygons.size() == ba.polygons.size());
      for (size_t i = 0; i < ab.polygons.size(); ++i) {
        const ContactPolygon &p = ab.polygons[i], &q = ba.polygons[i];
        CHECK(p.normal == -q.normal);
        CHECK(p.area == q.area);
        CHECK(p.pressure == q.pressure);
        CHECK(p.centroid == q.centroid);
        CHECK(p.gradient_a == q.gradient_b);
        CHECK(p.gradient_b == q.gradient_a);
        REQUIRE(p.num_vertices == q.num_vertices);
        for (int k = 0; k < p.num_vertices; ++k) {
          const int kq = q.first_vertex + q.num_vertices - 1 - k;
          CHECK(ab.vertices[p.first_vertex + k] == ba.vertices[kq]);
          CHECK(ab.vertex_pressure[p.first_vertex + k] == ba.vertex_pressure[kq]);
        }
      }
    }
  }
}

TEST_CASE("CalcContactSurface: normal from a into b and g of each body, both orders",
          "[hydroelastic]") {
  // A soft box (half sizes 6, 5, 4 cm, E/h = 1e5 / 0.04) resting 1 cm deep on a rigid plane
  // and on a compliant plane (E/H = 3e5 / 0.05), both orders: the flat inner polygons must
  // have normal -z from the box into the plane, the box's g = E/h and the plane's its own.
  const PairFixture f;
  const RigidTransform X_WS{math::RotationFromRpy(Vector3d(0.3, -0.2, 1.1)), Vector3d(1, 2, 3)};
  const RigidTransform X_WBox = X_WS * RigidTransform{Eigen::Matrix3d::Identity(),
                                                      Vector3d(0, 0, 0.04 - 0.01)};
  const Vector3d z_W = X_WS.R.col(2);
  ContactSurfaceScratch scratch;
  ContactSurface s;
  for (const HydroelasticGeometry* plane : {&f.rigid_plane, &f.soft_plane}) {
    const double g_plane = plane->IsRigidHalfspace() ? INFINITY : 3e5 / 0.05;
    for (const bool box_first : {true, false}) {
      INFO((plane->IsRigidHalfspace() ? "rigid" : "compliant") << " plane, box first "
                                                                << box_first);
      if (box_first) {
        CalcContactSurface(f.box, X_WBox, *plane, X_WS, &scratch, &s);
      } else {
        CalcContactSurface(*plane, X_WS, f.box, X_WBox, &scratch, &s);
      }
      const Vector3d n_expected = box_first ? Vector3d(-z_W) : z_W;
      // Flat polygons: both fields' gradients along z. With the rigid plane every polygon is
      // flat and the frame strip's have g_box = 0 (notes §3 vii); with the compliant plane
      // the strip's equal-pressure planes are slanted.
      int flat = 0;
      for (const ContactPolygon& p : s.polygons) {
        const double g_box = box_first ? p.gradient_a : p.gradient_b;
        const double g_other = box_first ? p.gradient_b : p.gradient_a;
        if (std::isinf(g_plane)) CHECK((p.normal - n_expected).norm() < 1e-12);
        if (std::abs(p.normal.dot(z_W)) < 1.0 - 1e-12 || g_box < 1e-6 * 1e5 / 0.04) continue;
        ++flat;
        CHECK((p.normal - n_expected).norm() < 1e-12);
        CHECK(g_box == Approx(1e5 / 0.04).epsilon(1e-12));
        if (std::isinf(g_plane)) {
          CHECK(std::isinf(g_other));
        } else {
          CHECK(g_other == Approx(g_plane).epsilon(1e-12));
        }
      }
      CHECK(flat > 0);
    }
  }
}

/// Distance [m] from x (box frame) to the boundary of the box of half sizes `half`, inside.
double BoxDepth(const Vector3d& half, const Vector3d& x) {
  return (half - x.cwiseAbs()).minCoeff();
}

TEST_CASE("SplitIntoTriangles: pressures of the exact box field, force kept, moment improved",
          "[hydroelastic]") {
  // A soft box tilted on a rigid plane. Its medial-axis field p = E phi / h is exact in every
  // tet (notes §1), so the pressure at any point of the surface is known in closed form: the
  // split's triangle pressures are checked against it, not against the code's interpolation.
  const Vector3d half(0.1, 0.08, 0.06);
  const double E = 1e5, h = half.minCoeff();
  HydroelasticGeometry box = Make(MakeShape(ShapeType::kBox, 2 * half, Compliance::kCompliant),
                                  E);
  HydroelasticGeometry plane = Make(MakeShape(ShapeType::kHalfspace, Vector3d::Zero(),
                                              Compliance::kRigid), 0);
  const RigidTransform X_WP{math::RotationFromRpy(Vector3d(0.1, 0.2, 0.3)), Vector3d(0.2, 0, 0)};
  // The box tilted by 0.15 rad about its y axis, its lowest edge 1.5 cm into the plane.
  const Eigen::Matrix3d R_PB = math::RotationFromRpy(Vector3d(0.05, 0.15, 0.2));
  double lowest = 0.0;
  for (int c = 0; c < 8; ++c) {
    const Vector3d corner((c & 1 ? 1 : -1) * half.x(), (c & 2 ? 1 : -1) * half.y(),
                          (c & 4 ? 1 : -1) * half.z());
    lowest = std::min(lowest, (R_PB * corner).z());
  }
  const RigidTransform X_WB = X_WP * RigidTransform{R_PB, Vector3d(0, 0, -lowest - 0.015)};
  ContactSurfaceScratch scratch;
  ContactSurface polygons, triangles;
  CalcContactSurface(box, X_WB, plane, X_WP, &scratch, &polygons);
  SplitIntoTriangles(polygons, &triangles);
  REQUIRE(polygons.polygons.size() > 4);
  CHECK(triangles.polygons.size() >= 3 * polygons.polygons.size());
  CheckWinding(triangles);
  auto exact_pressure = [&](const Vector3d& x_W) {
    return E * BoxDepth(half, X_WB.Inverse() * x_W) / h;
  };
  double area_poly = 0.0, area_tri = 0.0;
  for (const ContactPolygon& p : polygons.polygons) {
    area_poly += p.area;
    CHECK(p.pressure == Approx(exact_pressure(p.centroid)).epsilon(1e-10).margin(1e-9 * E));
  }
  for (const ContactPolygon& t : triangles.polygons) {
    area_tri += t.area;
    CHECK(t.num_vertices == 3);
    CHECK(t.pressure == Approx(exact_pressure(t.centroid)).epsilon(1e-10).margin(1e-9 * E));
    for (int k = 0; k < 3; ++k)
      CHECK(triangles.vertex_pressure[t.first_vertex + k] ==
            Approx(exact_pressure(triangles.vertices[t.first_vertex + k]))
                .epsilon(1e-10)
                .margin(1e-9 * E));
  }
  CHECK(area_tri == Approx(area_poly).epsilon(1e-12));
  // Force: sum A p0 is the integral of the linear field over each polygon, kept exactly.
  CHECK((Force(triangles) - Force(polygons)).norm() < 1e-12 * Force(polygons).norm());
  // Moment about the plane's origin: the continuum value integrates the exact field's first
  // moment over each polygon (3-point Gauss, exact for the quadratic integrand).
  const Vector3d o = X_WP.p;
  Vector3d continuum = Vector3d::Zero();
  for (const ContactPolygon& p : polygons.polygons) {
    const std::vector<Vector3d> poly(polygons.vertices.begin() + p.first_vertex,
                                     polygons.vertices.begin() + p.first_vertex + p.num_vertices);
    for (int i = 0; i < 3; ++i)
      continuum[i] += test::IntegrateOverPolygon(
          poly, [&](const Vector3d& x) { return (x - o).cross(p.normal)[i] * exact_pressure(x); });
  }
  const double error_poly = (Moment(polygons, o) - continuum).norm();
  const double error_tri = (Moment(triangles, o) - continuum).norm();
  INFO("moment error: polygons " << error_poly << ", triangles " << error_tri << " N m");
  CHECK(error_poly > 0.0);
  CHECK(error_tri < 0.5 * error_poly);
}

TEST_CASE("CalcContactSurface and SplitIntoTriangles: warmed up, no allocation",
          "[hydroelastic]") {
  const PairFixture f;
  const RigidTransform X_WA{math::RotationFromRpy(Vector3d(0.2, 0.1, 0.4)), Vector3d(0, 0, 0)};
  const RigidTransform X_WB{math::RotationFromRpy(Vector3d(-0.3, 0.5, 0.1)),
                            Vector3d(0.01, 0.0, -0.03)};
  ContactSurfaceScratch scratch;
  ContactSurface s, t;
  const std::pair<const HydroelasticGeometry*, const HydroelasticGeometry*> pairs[] = {
      {&f.sphere, &f.box},        {&f.box, &f.sphere},       {&f.sphere, &f.soft_plane},
      {&f.soft_plane, &f.sphere}, {&f.sphere, &f.rigid_box}, {&f.rigid_box, &f.sphere},
      {&f.box, &f.rigid_plane},   {&f.rigid_plane, &f.box},  {&f.soft_plane, &f.rigid_box},
      {&f.rigid_box, &f.soft_plane}};
  for (const auto& [a, b] : pairs) {
    CalcContactSurface(*a, X_WA, *b, X_WB, &scratch, &s);
    REQUIRE(!s.polygons.empty());
    SplitIntoTriangles(s, &t);
  }
  const std::size_t before = testing::AllocationCount();
  for (const auto& [a, b] : pairs) {
    CalcContactSurface(*a, X_WA, *b, X_WB, &scratch, &s);
    SplitIntoTriangles(s, &t);
  }
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::hydroelastic
