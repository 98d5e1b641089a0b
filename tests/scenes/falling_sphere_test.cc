// scenes/falling_sphere.yaml: a 0.5 kg sphere (r = 2.5 cm) dropped from 5 cm with U0 = 2 m/s
// sideways onto ground of k = 1e7 N/m, d = 500 s/m, mu = 0.5, Lagged model. Here: the
// landing (free fall), no bounce (Hunt & Crossley's rebound at large d v), and when the
// sliding ends (the friction impulse rolling needs). The rolling speed 5/7 U0 and the
// other models' gliding are checked in tests/contact_physics/hunt_crossley_test.cc.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/falling_sphere.yaml: lands at sqrt(2 h / g), does not bounce, and rolls once "
          "friction has given it 2/7 m U0", "[scenes]") {
  const SceneRun run = RunSceneFile("falling_sphere.yaml");
  const double r = 0.025, h = 0.05, g = 9.81, U0 = 2.0, mu = 0.5, d = 500.0;
  const double dt = 2e-3, v_s = 1e-4;
  const int b = run.Body("sphere");

  const double t_land = std::sqrt(2 * h / g), v_land = g * t_land;
  double first_push = -1.0, rebound = 0.0;
  for (const sim::Row& row : run.rows) {
    const Eigen::Vector3d f = contact_physics::TotalForceOn(row, b);
    if (first_push < 0 && f.z() > 0) first_push = row.time;
    if (first_push > 0) rebound = std::max(rebound, row.body_linear_velocity(2, b));
  }
  // The ground first pushes in the step at whose end the sphere would be in it: within a
  // step of the exact landing time.
  REQUIRE(first_push > 0);
  CHECK(first_push == Approx(t_land).margin(dt));
  // No bounce: Hunt & Crossley's rebound speed tends to 1 / d as d v_in grows.
  CHECK(rebound < 1.0 / d);

  // Rolling needs the friction impulse 2/7 m U0: the landing's normal impulse m v_land
  // brings mu times that at once, sliding friction mu m g the rest, so the slide ends at
  // t_roll. The Lagged model applies the landing's friction a step after its normal
  // impulse: rolling (slip below v_s) two steps after t_roll, sliding until a step before.
  const double t_roll = t_land + (2.0 / 7.0 * U0 - mu * v_land) / (mu * g);
  CHECK(t_roll == Approx(0.117).margin(0.001));
  for (const sim::Row& row : run.rows) {
    const double slip = row.body_linear_velocity(0, b) - row.body_angular_velocity(1, b) * r;
    INFO("t = " << row.time << ", slip " << slip);
    if (row.time < t_roll - dt) CHECK(slip > 100 * v_s);
    if (row.time > t_roll + 2 * dt) CHECK(std::abs(slip) < v_s);
  }
}

}  // namespace
}  // namespace csim::scenes
