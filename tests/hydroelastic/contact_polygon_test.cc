// AppendContactPolygon and IsAlongGradient (engine/hydroelastic/contact_polygon.h) on hand
// cases: a square in a turned frame, degenerate polygons, and the 5 pi / 8 cone.

#include "engine/hydroelastic/contact_polygon.h"

#include <cmath>

#include <catch2/catch.hpp>

#include "engine/math/rotation.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;

TEST_CASE("Contact polygon: a square in a turned frame, pressures from the linear field",
          "[hydroelastic]") {
  // The square [0, 2] x [0, 1] in the plane z = 0.5 of frame F, normal +z_F, with
  // p = 100 x + 10 at its points: area 2, centroid (1, 0.5, 0.5)_F, p0 = 110 Pa.
  ClipPolygon polygon;
  polygon.size = 5;
  polygon.v = {Vector3d(0, 0, 0.5), Vector3d(2, 0, 0.5), Vector3d(2, 1, 0.5),
               Vector3d(2, 1, 0.5 + 1e-14), Vector3d(0, 1, 0.5)};  // one near-duplicate
  const math::RigidTransform X_WF{math::RotationFromRpy(Vector3d(0.3, -0.2, 1.0)),
                                  Vector3d(1, 2, 3)};
  ContactSurface surface;
  surface.vertices.push_back(Vector3d::Zero());  // an earlier polygon's vertex
  surface.vertex_pressure.push_back(0.0);
  REQUIRE(AppendContactPolygon(&polygon, Vector3d::UnitZ(), Vector3d(100, 0, 0), 10.0, 7.0, 8.0,
                               100.0, 9.0, X_WF, &surface));
  REQUIRE(surface.polygons.size() == 1);
  const ContactPolygon& p = surface.polygons[0];
  CHECK(p.first_vertex == 1);
  CHECK(p.num_vertices == 4);
  CHECK(p.area == Approx(2.0).epsilon(1e-15));
  CHECK((p.centroid - X_WF * Vector3d(1, 0.5, 0.5)).norm() < 1e-14);
  CHECK((p.normal - X_WF.R.col(2)).norm() < 1e-15);
  CHECK(p.pressure == Approx(110.0).epsilon(1e-15));
  CHECK(p.gradient_a == 7.0);
  CHECK(p.gradient_b == 8.0);
  CHECK(p.gradient_norm_a == 100.0);
  CHECK(p.gradient_norm_b == 9.0);
  CHECK((surface.vertices[3] - X_WF * Vector3d(2, 1, 0.5)).norm() < 1e-14);
  CHECK(surface.vertex_pressure[3] == Approx(210.0).epsilon(1e-15));
  CHECK(surface.vertex_pressure[4] == Approx(10.0).epsilon(1e-15));
}

TEST_CASE("Contact polygon: degenerate polygons are not appended", "[hydroelastic]") {
  ContactSurface surface;
  ClipPolygon polygon;
  // Two distinct vertices after the duplicates go.
  polygon.size = 3;
  polygon.v[0] = Vector3d(0, 0, 0);
  polygon.v[1] = Vector3d(1, 0, 0);
  polygon.v[2] = Vector3d(1, 1e-14, 0);
  CHECK(!AppendContactPolygon(&polygon, Vector3d::UnitZ(), Vector3d::Zero(), 0, 1, 1, 1, 1,
                              math::RigidTransform(), &surface));
  // Collinear: zero area.
  polygon.size = 3;
  polygon.v[0] = Vector3d(0, 0, 0);
  polygon.v[1] = Vector3d(1, 0, 0);
  polygon.v[2] = Vector3d(2, 0, 0);
  CHECK(!AppendContactPolygon(&polygon, Vector3d::UnitZ(), Vector3d::Zero(), 0, 1, 1, 1, 1,
                              math::RigidTransform(), &surface));
  CHECK(surface.polygons.empty());
  CHECK(surface.vertices.empty());
}

TEST_CASE("Contact polygon: the normal-gradient cone is 5 pi / 8 wide", "[hydroelastic]") {
  const Vector3d nhat = Vector3d::UnitZ();
  for (const double dtheta : {-1e-6, 1e-6}) {
    const double theta = 5 * M_PI / 8 + dtheta;
    const Vector3d grad = 3e5 * Vector3d(std::sin(theta), 0, std::cos(theta));
    CHECK(IsAlongGradient(nhat, grad) == (dtheta < 0));
  }
  CHECK(IsAlongGradient(nhat, Vector3d::Zero()));  // constant pressure: no side to reject
}

}  // namespace
}  // namespace csim::hydroelastic
