// The recorded polygons of a hydroelastic contact surface (settings.output.contact_surfaces,
// docs/output-format.md "Extension: hydroelastic contact surfaces") against the closed form
// of scenes/soft_box_on_floor.yaml: a soft box (half sizes a, b, c; medial-axis field
// p = E dist / h, exact on its tets) pressed a depth d into a rigid floor touches it on the
// rectangle |x| <= a - d, |y| <= b - d at the uniform pressure E d / h (the side faces'
// regions are cut along their gradient and skipped). So, at the start of the step that
// produced a row (the previous row's pose):
//  - every vertex lies on the floor plane z = 0, inside that rectangle;
//  - the polygons tile the rectangle: every sample point of it lies in exactly one, and
//    their areas (from the vertices) add up to the surface's recorded area and 4 (a-d)(b-d);
//  - every vertex pressure is E d / h;
//  - at rest each polygon's force is its pressure integrated over it (the integral of a
//    linear field over a polygon is exact from its vertices, by the triangles of a fan),
//    and the surface's force is their sum, m g.
// Both ways a surface enters the step: one contact per polygon, or per triangle of the fan
// about each polygon's centroid (settings.contact_surface: triangle).

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "tests/scenes/scene_run.h"

namespace csim::contact_physics {
namespace {

// One recorded polygon: its vertices, their pressures and its contact.
struct Polygon {
  std::vector<Eigen::Vector3d> vertices;
  std::vector<double> pressure;
  const sim::ContactRow* contact = nullptr;
};

// The polygons of surface `s` of `row`, cut out of the row's flat vertex arrays.
std::vector<Polygon> PolygonsOf(const sim::Row& row, int s) {
  int polygon = 0, vertex = 0;  // the first of surface s
  for (int k = 0; k < s; ++k) {
    for (int j = 0; j < row.surfaces[k].num_contacts; ++j)
      vertex += row.polygon_vertex_count[polygon++];
  }
  std::vector<Polygon> out;
  const sim::SurfaceRow& surface = row.surfaces[s];
  for (int j = 0; j < surface.num_contacts; ++j, ++polygon) {
    Polygon p;
    for (int i = 0; i < row.polygon_vertex_count[polygon]; ++i, ++vertex) {
      p.vertices.push_back(row.vertex_position[vertex]);
      p.pressure.push_back(row.vertex_pressure[vertex]);
    }
    p.contact = &row.contacts[surface.first_contact + j];
    out.push_back(p);
  }
  return out;
}

// Area of a planar polygon wound counter-clockwise about `n`, by the fan from vertex 0.
double Area(const Polygon& p, const Eigen::Vector3d& n) {
  double area = 0.0;
  for (size_t i = 1; i + 1 < p.vertices.size(); ++i)
    area += 0.5 * (p.vertices[i] - p.vertices[0]).cross(p.vertices[i + 1] - p.vertices[0]).dot(n);
  return area;
}

// Integral of the linear pressure field over the polygon [N]: over each triangle of the fan,
// its area times the mean of its vertex values (exact for a linear field).
double PressureIntegral(const Polygon& p, const Eigen::Vector3d& n) {
  double force = 0.0;
  for (size_t i = 1; i + 1 < p.vertices.size(); ++i) {
    const double area =
        0.5 * (p.vertices[i] - p.vertices[0]).cross(p.vertices[i + 1] - p.vertices[0]).dot(n);
    force += area * (p.pressure[0] + p.pressure[i] + p.pressure[i + 1]) / 3.0;
  }
  return force;
}

// Whether x lies strictly inside the convex polygon (counter-clockwise about n).
bool Inside(const Polygon& p, const Eigen::Vector3d& x, const Eigen::Vector3d& n) {
  const size_t m = p.vertices.size();
  for (size_t i = 0; i < m; ++i) {
    const Eigen::Vector3d& v0 = p.vertices[i];
    const Eigen::Vector3d& v1 = p.vertices[(i + 1) % m];
    if (!((v1 - v0).cross(x - v0).dot(n) > 0.0)) return false;
  }
  return true;
}

void CheckRestingBoxPolygons(const std::vector<std::string>& overrides) {
  const double E = 1e5, a = 0.1, b = 0.05, c = 0.03, h = 0.03, m = 2.0, g = 9.81;
  const SceneRun run = scenes::RunSceneFile("soft_box_on_floor.yaml", overrides);
  const int box = run.Body("box");
  REQUIRE(run.rows.size() > 2);
  const sim::Row& last = run.rows.back();
  // The surface was found at the start of the last step: the previous row's pose.
  const sim::Row& start = run.rows[run.rows.size() - 2];
  const Eigen::Vector3d centre = start.body_position.col(box);
  const double d = c - centre.z();
  INFO("depth " << d << " m");
  REQUIRE(d > 0.0);
  REQUIRE(last.surfaces.size() == 1);
  const sim::SurfaceRow& surface = last.surfaces[0];
  const std::vector<Polygon> polygons = PolygonsOf(last, 0);
  REQUIRE(polygons.size() >= 4);  // the medial-axis tets cut the face at least in four
  // The rows' polygons are exactly the surfaces' contacts.
  CHECK(last.polygon_vertex_count.size() == size_t(surface.num_contacts));

  double area = 0.0, pressure_force = 0.0;
  for (const Polygon& p : polygons) {
    const Eigen::Vector3d& n = p.contact->normal;
    REQUIRE(p.vertices.size() >= 3);
    CHECK(std::abs(std::abs(n.z()) - 1.0) < 1e-12);  // the floor's normal
    for (size_t i = 0; i < p.vertices.size(); ++i) {
      const Eigen::Vector3d& v = p.vertices[i];
      CHECK(std::abs(v.z()) < 1e-12);  // on the floor plane
      CHECK(std::abs(v.x() - centre.x()) <= a - d + 1e-12);
      CHECK(std::abs(v.y() - centre.y()) <= b - d + 1e-12);
      CHECK(p.pressure[i] == Approx(E * d / h).epsilon(1e-12));
    }
    const double A = Area(p, n);
    CHECK(A > 0.0);  // wound counter-clockwise about the contact normal
    area += A;
    // At rest a polygon's contact carries its pressure's integral (its linearized field
    // at the depth of the step's start), up to the damping of the box's residual velocity
    // (the solve's tolerance): well below 1e-8 of it after a second at rest.
    const double F = PressureIntegral(p, n);
    pressure_force += F;
    CHECK(p.contact->force.dot(n) == Approx(F).epsilon(1e-8));
  }
  CHECK(area == Approx(surface.area).epsilon(1e-12));
  CHECK(area == Approx(4 * (a - d) * (b - d)).epsilon(1e-12));
  CHECK(std::abs(surface.force.z()) == Approx(pressure_force).epsilon(1e-10));
  CHECK(pressure_force == Approx(m * g).epsilon(1e-9));

  // Tiling: every sample point of the rectangle lies in exactly one polygon (samples off
  // any line through the centre at a simple slope, so none is on a shared edge).
  const Eigen::Vector3d up = polygons[0].contact->normal;
  int misses = 0, overlaps = 0;
  const int nx = 41, ny = 23;
  for (int i = 0; i < nx; ++i) {
    for (int j = 0; j < ny; ++j) {
      const Eigen::Vector3d x(centre.x() + (a - d) * (-1.0 + 2.0 * (i + 0.371) / nx),
                              centre.y() + (b - d) * (-1.0 + 2.0 * (j + 0.613) / ny), 0.0);
      int covering = 0;
      for (const Polygon& p : polygons) covering += Inside(p, x, up);
      misses += covering == 0;
      overlaps += covering > 1;
    }
  }
  CHECK(misses == 0);
  CHECK(overlaps == 0);
}

TEST_CASE("hydroelastic polygons: a resting soft box's polygons tile its footprint at "
          "pressure E d / h and integrate to its weight",
          "[contact-physics][hydroelastic]") {
  SECTION("one contact per polygon") {
    CheckRestingBoxPolygons({"settings.output.contact_surfaces=true"});
  }
  SECTION("one contact per triangle of the fan") {
    CheckRestingBoxPolygons(
        {"settings.output.contact_surfaces=true", "settings.contact_surface=triangle"});
  }
}

TEST_CASE("hydroelastic polygons: recorded only when output.contact_surfaces asks",
          "[contact-physics][hydroelastic]") {
  const SceneRun run =
      scenes::RunSceneFile("soft_box_on_floor.yaml", {"settings.duration=0.01"});
  for (const sim::Row& row : run.rows) {
    CHECK(row.polygon_vertex_count.empty());
    CHECK(row.vertex_position.empty());
    CHECK(row.vertex_pressure.empty());
  }
  REQUIRE_FALSE(run.rows.back().surfaces.empty());
}

}  // namespace
}  // namespace csim::contact_physics
