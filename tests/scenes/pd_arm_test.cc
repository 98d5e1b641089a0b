// scenes/pd_arm.yaml: a 3-link arm following pchip keyframes with PD actuators, effort
// limits and a gravity feed-forward. Oracles: the feed-forward is the static torque of the
// links beyond each joint at the initial pose (summed by hand), so the arm starts and ends
// at rest on its target with the PD terms idle; the effort limits bound every effort; the
// fast segment asks for more than the shoulder's limit.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/pd_arm.yaml: the arm tracks its start, saturates the shoulder in the fast "
          "swing, keeps every effort within its limit and settles home", "[scenes][robots]") {
  const SceneRun run = RunSceneFile("pd_arm.yaml");
  const multibody::Model& model = run.scene.model;
  REQUIRE(model.actuators.size() == 3);
  // The horizontal arm's static torques: links of 1 kg with their centres 0.2, 0.6, 1.0 m
  // from the shoulder; the elbow carries the last two, the wrist the last.
  const double g = 9.81;
  const double hold[] = {g * (0.2 + 0.6 + 1.0), g * (0.2 + 0.6), g * 0.2};
  const double limit[] = {40, 20, 8};
  for (int i = 0; i < 3; ++i) {
    CHECK(std::abs(model.actuators[i].feedforward) == Approx(hold[i]).epsilon(1e-12));
    CHECK(model.actuators[i].effort_limit == limit[i]);
  }
  bool shoulder_saturated_in_fast_segment = false;
  double largest_lag = 0.0;
  for (const sim::Row& row : run.rows) {
    INFO("t = " << row.time);
    for (int i = 0; i < 3; ++i) {
      REQUIRE(std::abs(row.actuator_effort[i]) <= limit[i] * (1 + 1e-12));
      const double error = std::abs(row.q[i] - row.actuator_q_target[i]);
      if (row.time <= 0.2) REQUIRE(error < 2e-3);
      if (row.time <= 3.0) largest_lag = std::max(largest_lag, error);
      if (row.time >= 4.5) {
        REQUIRE(error < 1e-6);
        REQUIRE(row.actuator_saturated[i] == 0);
      }
    }
    if (row.time > 1.0 && row.time < 1.5 && row.actuator_saturated[0] == 1) {
      REQUIRE(std::abs(row.actuator_effort[0]) == Approx(limit[0]).epsilon(1e-12));
      shoulder_saturated_in_fast_segment = true;
    }
  }
  CHECK(shoulder_saturated_in_fast_segment);
  CHECK(largest_lag < 0.15);
}

}  // namespace
}  // namespace csim::scenes
