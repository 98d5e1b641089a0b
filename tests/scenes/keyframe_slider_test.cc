// scenes/keyframe_slider.yaml: a cart whose rail position is a prescribed pchip keyframe
// trajectory, and a puck on a frictionless slide on it. Oracles: the keyframes themselves,
// the pchip knot velocities computed by hand (Fritsch-Butland, zero end slopes), pchip's
// no-overshoot property, and Newton's first law for the puck (at rest in the world while
// the rail moves under it), with the trapezoidal rule's error bound for its position.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/keyframe_slider.yaml: the cart passes its keyframes with the pchip knot "
          "velocities, never overshoots, holds after the last, and the puck stays at rest "
          "in the world", "[scenes]") {
  const SceneRun run = RunSceneFile("keyframe_slider.yaml");
  const int cart = run.Body("cart"), puck = run.Body("puck");
  const double dt = 1e-3;
  const double t_key[] = {0, 1, 2, 3};
  const double x_key[] = {0.0, 0.1, 0.4, 0.2};
  // Knot velocities by hand: zero at both ends (end_velocity zero); at t = 1 the secants
  // are 0.1 and 0.3 m/s on unit intervals, whose weighted harmonic mean is
  // 3 (1 + 1) / ((1 + 2) / 0.1 + (2 + 1) / 0.3) = 0.15 m/s; at t = 2 the secants 0.3
  // and -0.2 m/s change sign, so the slope is 0.
  const double v_key[] = {0.0, 0.15, 0.0, 0.0};
  // The largest jerk 6 c3 = 6 (d_k + d_k+1 - 2 delta_k) / h^2 over the segments.
  const double jerk = 6 * std::max({std::abs(0.0 + 0.15 - 2 * 0.1), std::abs(0.15 + 0 - 2 * 0.3),
                                    std::abs(0.0 + 0 - 2 * -0.2)});
  REQUIRE(jerk == Approx(2.7));  // the header's bound

  const Eigen::Vector3d puck_start = run.rows.front().body_position.col(puck);
  int keyframes_seen = 0;
  for (const sim::Row& row : run.rows) {
    const double t = row.time;
    const double x = row.body_position(0, cart), v = row.body_linear_velocity(0, cart);
    INFO("t = " << t);
    for (int k = 0; k < 4; ++k) {
      if (std::abs(t - t_key[k]) > 0.5 * dt) continue;
      CHECK(x == Approx(x_key[k]).margin(1e-12));
      CHECK(v == Approx(v_key[k]).margin(1e-12));
      ++keyframes_seen;
    }
    // Between keyframes k and k + 1 the cart stays within their positions.
    if (t < 3.0) {
      const int k = std::min(2, static_cast<int>(t));
      CHECK(x >= std::min(x_key[k], x_key[k + 1]) - 1e-15);
      CHECK(x <= std::max(x_key[k], x_key[k + 1]) + 1e-15);
    } else {
      CHECK(x == 0.2);
      CHECK(v == 0.0);
    }
    // The puck: at rest in the world, its position within the trapezoidal rule's error.
    CHECK(std::abs(row.body_linear_velocity(0, puck)) < 1e-12);
    CHECK((row.body_position.col(puck) - puck_start).norm() <= t * dt * dt * jerk / 12 + 1e-12);
  }
  CHECK(keyframes_seen == 4);
  CHECK(run.rows.back().time == Approx(4.0));
}

}  // namespace
}  // namespace csim::scenes
