// scenes/soft_box_on_floor.yaml: a compliant box (medial-axis pressure field, exact on its
// tets) resting flat on a rigid floor. Oracle: the contact surface at depth d is the
// rectangle |x| <= a - d, |y| <= b - d where p = E d / h, so the floor carries
// F(d) = (E / h) 4 (a - d)(b - d) d; at rest F(d) = m g (docs/design/hydroelastic.md §5).

#include <catch2/catch.hpp>

#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/soft_box_on_floor.yaml: the box rests at the depth where (E / h) 4 (a - d)"
          "(b - d) d = m g, on one surface of area 4 (a - d)(b - d) centred under it",
          "[scenes]") {
  const SceneRun run = RunSceneFile("soft_box_on_floor.yaml");
  const double E = 1e5, a = 0.1, b = 0.05, c = 0.03, h = 0.03, m = 2.0, g = 9.81;
  const auto force = [&](double d) { return E / h * 4 * (a - d) * (b - d) * d; };
  double lo = 0.0, hi = 0.01;  // F is increasing on [0, 0.01]
  for (int i = 0; i < 200; ++i) (force(0.5 * (lo + hi)) < m * g ? lo : hi) = 0.5 * (lo + hi);
  const double d_rest = 0.5 * (lo + hi);
  REQUIRE(d_rest == Approx(2.969e-4).epsilon(1e-3));  // the header's figure

  const sim::Row& last = run.rows.back();
  const int box = run.Body("box");
  const double d = c - last.body_position(2, box);
  CHECK(d == Approx(d_rest).epsilon(1e-6));
  CHECK(last.body_position.col(box).head<2>().norm() < 1e-9);  // no sliding
  CHECK(last.body_linear_velocity.col(box).norm() < 1e-6);
  CHECK(last.body_angular_velocity.col(box).norm() < 1e-6);      // no tipping
  REQUIRE(last.surfaces.size() == 1);
  const sim::SurfaceRow& s = last.surfaces[0];
  // The area and force of the surface at the recorded row's start-of-step depth.
  CHECK(s.area == Approx(4 * (a - d) * (b - d)).epsilon(1e-9));
  CHECK(s.force.z() == Approx(m * g).epsilon(1e-6));
  CHECK(s.force.head<2>().norm() < 1e-9 * m * g);
  CHECK(s.centroid.head<2>().norm() < 1e-12);
  CHECK(s.moment.norm() < 1e-9);
}

}  // namespace
}  // namespace csim::scenes
