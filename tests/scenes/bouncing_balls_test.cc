// scenes/bouncing_balls.yaml: three 0.1 kg balls dropped from 0.2 m onto a floor of
// k = 1e4 N/m under the Lagged Hunt & Crossley model, d = 0, 0.1 and 1 s/m, no friction.
// Oracles: free fall; the continuous Hunt & Crossley contact m x'' = -k x (1 + d x'),
// whose rebound speed solves d v_in - ln(1 + d v_in) = -d v_out - ln(1 - d v_out)
// (integrate m v dv / (1 + d v) = -k x dx over the contact: the right side closes to
// zero); and the implicit step's loss on an undamped spring, a factor 1 / sqrt(1 +
// (omega dt)^2) of the amplitude per step over the pi / (omega dt) steps of the contact.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

// Rebound over impact speed of the continuous Hunt & Crossley contact (independent of k
// and m), by bisection on y = d v_out in [0, 1).
double HuntCrossleyRestitution(double d, double v_in) {
  if (d == 0) return 1.0;
  const double target = d * v_in - std::log1p(d * v_in);
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double y = 0.5 * (lo + hi);
    (-y - std::log1p(-y) < target ? lo : hi) = y;
  }
  return lo / (d * v_in);
}

TEST_CASE("scenes/bouncing_balls.yaml: impact at sqrt(2 g h), contact of pi sqrt(m/k), rebound "
          "at Hunt & Crossley's restitution times the step's loss", "[scenes]") {
  // The first bounce is all the header describes: 0.35 s takes the balls through it.
  const SceneRun run = RunSceneFile("bouncing_balls.yaml", {"settings.duration=0.35"});
  const double m = 0.1, k = 1e4, r = 0.05, h = 0.2, g = 9.81, dt = 1e-4;
  const double v_impact = std::sqrt(2 * g * h);
  const double omega = std::sqrt(k / m);
  const double step_loss = std::pow(1 + omega * dt * omega * dt, -0.5 * kPi / (omega * dt));
  REQUIRE(step_loss == Approx(0.95).margin(0.005));

  const std::vector<std::pair<std::string, double>> balls = {
      {"elastic", 0.0}, {"lively", 0.1}, {"dead", 1.0}};
  for (const auto& [name, d] : balls) {
    INFO(name);
    const int b = run.Body(name);
    const Eigen::Vector3d start = run.rows.front().body_position.col(b);
    double v_in = 0.0, v_out = 0.0, first_contact = -1.0, last_contact = -1.0, drift = 0.0;
    for (const sim::Row& row : run.rows) {
      const double z = row.body_position(2, b), vz = row.body_linear_velocity(2, b);
      drift = std::max(drift, (row.body_position.col(b) - start).head<2>().norm());
      if (z < r) {  // overlapping the floor
        if (first_contact < 0) first_contact = row.time;
        last_contact = row.time;
      }
      if (first_contact < 0) v_in = std::max(v_in, -vz);
      else v_out = std::max(v_out, vz);
    }
    REQUIRE(first_contact > 0);
    // Free fall to the floor: the last row before the overlap is up to a step early, and
    // symplectic Euler's positions run ahead of the exact fall by g t dt / 2.
    CHECK(v_in == Approx(v_impact).margin(2 * g * dt));
    CHECK(first_contact == Approx(std::sqrt(2 * h / g)).margin(dt));
    const double expected = HuntCrossleyRestitution(d, v_impact) * step_loss;
    if (d == 0) {
      // An undamped spring: half a period in contact.
      CHECK(last_contact - first_contact == Approx(kPi / omega).epsilon(0.03));
      CHECK(v_out / v_impact == Approx(expected).epsilon(5e-3));
    } else {
      CHECK(v_out / v_impact == Approx(expected).epsilon(0.02));
    }
    // Frictionless: no force ever pushes a ball sideways.
    CHECK(drift < 1e-12);
  }
  // The header's figures from the formula.
  CHECK(HuntCrossleyRestitution(0.1, v_impact) == Approx(0.883).margin(0.001));
  CHECK(HuntCrossleyRestitution(1.0, v_impact) == Approx(0.413).margin(0.001));
}

}  // namespace
}  // namespace csim::scenes
