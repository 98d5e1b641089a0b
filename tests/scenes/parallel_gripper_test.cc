// scenes/parallel_gripper.yaml: a carriage on a vertical slide with two coupled fingers
// picks a box off the floor, holds it, sets it down and lets go. Oracles: the coupler's
// near-rigid yield under the force it carries (docs/design/actuators-and-constraints.md
// §4.2), the PD's static sag under the box's weight (the gravity feed-forward holds the
// carriage and fingers only), the solver's certificate, the box's start as its end, and
// bounds on slip and lift stated in the scene's header.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/parallel_gripper.yaml: the coupled fingers pinch the box, lift it off the "
          "floor without slipping, set it down and let go", "[scenes][robots]") {
  const SceneRun run = RunSceneFile("parallel_gripper.yaml");
  const multibody::Model& model = run.scene.model;
  REQUIRE(run.rows.size() == 4001);
  REQUIRE(model.actuators.size() == 2);
  const int box = run.Body("box"), finger = run.Body("finger_left");
  const int lift = model.joints[run.Body("carriage")].q_start;
  const int q_l = model.joints[finger].q_start;
  const int q_r = model.joints[run.Body("finger_right")].q_start;
  const double dt = 1e-3, g = 9.81, m_box = 0.2, kp_lift = 2000, grip_limit = 10;
  const double tolerance = run.scene.settings.solver.relative_tolerance;

  // The coupler's yield: gamma = dt * 5 N (half the saturated finger motor's effort) through
  // R = beta^2 w / (4 pi^2), w = 1/A_ll + 1/A_rr with A = the 0.1 kg fingers' masses.
  const double R = 0.01 * (1 / 0.1 + 1 / 0.1) / (4 * kPi * kPi);
  const double yield = 2 * dt * R * (dt * grip_limit / 2);
  CHECK(yield == Approx(5.07e-8).epsilon(1e-2));

  const Eigen::Vector3d rest = run.rows.front().body_position.col(box);
  const double rest_on_finger = rest.z() - run.rows.front().body_position(2, finger);
  double asymmetry = 0, worst_error = 0, lowest_lift = 1, slip = 0;
  for (const sim::Row& row : run.rows) {
    INFO("t = " << row.time);
    const double t = row.time;
    REQUIRE(row.solver.momentum_error <= tolerance);
    worst_error = std::max(worst_error, row.solver.momentum_error);
    asymmetry = std::max(asymmetry, std::abs(row.q[q_l] + row.q[q_r]));
    REQUIRE(std::abs(row.actuator_effort[0]) <= 20 * (1 + 1e-12));
    REQUIRE(std::abs(row.actuator_effort[1]) <= grip_limit * (1 + 1e-12));
    // The finger motor grips at its limit.
    if (t >= 0.6 && t <= 3.0) {
      REQUIRE(row.actuator_saturated[1] == 1);
      REQUIRE(row.actuator_effort[1] == Approx(grip_limit).epsilon(1e-12));
    }
    const double on_finger = row.body_position(2, box) - row.body_position(2, finger);
    if (t >= 0.8 && t <= 2.3) slip = std::max(slip, std::abs(on_finger - rest_on_finger));
    if (t >= 1.5 && t <= 2.3) {
      // Held: the carriage sags by the box's weight over kp; the box is off the floor.
      REQUIRE(row.q[lift] == Approx(0.05 - m_box * g / kp_lift).margin(1e-5));
      lowest_lift = std::min(lowest_lift, row.body_position(2, box) - rest.z());
      for (const sim::ContactRow& c : row.contacts)
        REQUIRE_FALSE(((c.body_a == -1 && c.body_b == box) || (c.body_b == -1 && c.body_a == box)));
    }
    if (t >= 3.5) {
      // Set down where it started, at rest, and let go.
      REQUIRE((row.body_position.col(box) - rest).norm() < 1e-6);
      REQUIRE(row.body_linear_velocity.col(box).norm() < 1e-9);
      REQUIRE(row.body_angular_velocity.col(box).norm() < 1e-9);
      REQUIRE(std::abs(row.q[q_l]) < 1e-6);
      for (const sim::ContactRow& c : row.contacts) {
        REQUIRE(c.body_a != finger);
        REQUIRE(c.body_b != finger);
      }
    }
  }
  INFO("momentum error " << worst_error << ", |q_l + q_r| " << asymmetry << " m (yield " << yield
                         << "), lift " << lowest_lift << " m, slip " << slip << " m");
  CHECK(asymmetry < 6e-8);
  CHECK(asymmetry <= yield * 1.01);
  CHECK(lowest_lift > 0.048);
  CHECK(slip < 1e-5);
  // The box ended up back on the floor: a contact with the world holds its weight.
  Eigen::Vector3d support = Eigen::Vector3d::Zero();
  for (const sim::ContactRow& c : run.rows.back().contacts)
    if (c.body_a == -1 || c.body_b == -1) support += contact_physics::ForceOn(c, box);
  CHECK(support.z() == Approx(m_box * g).epsilon(1e-6));
}

}  // namespace
}  // namespace csim::scenes
