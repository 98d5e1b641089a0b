// scenes/sap_grasp_square_wave.yaml: two coupled fingers squeeze a hanging handle with a
// force actuator driven by the SAP paper's square wave (sec. VI-D). Oracles: the signal's
// definition (the force actuator is explicit, so its effort is the signal at each step's
// start), Coulomb's law (the handle slides at g - mu F_low / m while the grip is low, is
// caught at 16 N), SAP's gliding gap dt mu |v_t| (docs/design/sap-problem.md §5.2) and the
// coupler's near-rigid yield (docs/design/actuators-and-constraints.md §4.2).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

/// The scene's `grip` signal: high 16 N while (t + 3) mod 6 < 0.75 * 6, else 1 N.
double Grip(double t) { return std::fmod(t + 3.0, 6.0) < 4.5 ? 16.0 : 1.0; }

TEST_CASE("scenes/sap_grasp_square_wave.yaml: the handle is held at 16 N, slides at "
          "g - mu F / m at 1 N and is caught again, and the finger force is the signal",
          "[scenes][robots]") {
  const SceneRun run = RunSceneFile("sap_grasp_square_wave.yaml");
  const multibody::Model& model = run.scene.model;
  REQUIRE(run.rows.size() == 4501);
  REQUIRE(model.actuators.size() == 1);
  const int handle = run.Body("handle");
  const int q_l = model.joints[run.Body("finger_left")].q_start;
  const int q_r = model.joints[run.Body("finger_right")].q_start;
  const double dt = 1e-3, g = 9.81, m = 0.1, mu = 0.95;
  const double a = g - mu * 1.0 / m;  // the slide's acceleration at 1 N [m/s^2]
  const double tolerance = run.scene.settings.solver.relative_tolerance;
  // The coupler carries half of the 16 N: gamma = dt * 8 N, R = beta^2 w / (4 pi^2), w = 20 /kg.
  const double yield = 2 * dt * (0.01 * 20 / (4 * kPi * kPi)) * (dt * 8);

  auto z = [&](const sim::Row& row) { return row.body_position(2, handle); };
  auto row_at = [&](double t) -> const sim::Row& {
    return run.rows[static_cast<size_t>(std::llround(t / dt))];
  };
  double asymmetry = 0, worst_error = 0, held_slip = 0, caught_slip = 0, accel_error = 0,
         glide_error = 0, caught_at = -1;
  const double z0 = z(run.rows.front()), z_caught_ref = z(row_at(3.1));
  for (size_t i = 0; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    const double t = row.time;
    INFO("t = " << t);
    REQUIRE(row.solver.momentum_error <= tolerance);
    worst_error = std::max(worst_error, row.solver.momentum_error);
    asymmetry = std::max(asymmetry, std::abs(row.q[q_l] + row.q[q_r]));
    const double vz = row.body_linear_velocity(2, handle);
    // The effort of the step [t - dt, t] is the signal at its start, exactly (rows within
    // round-off of an edge excepted).
    const double start = (static_cast<double>(row.step) - 1) * dt;
    if (i > 0 && std::abs(std::fmod(start + 3.0, 6.0) - 4.5) > 1e-9 && std::abs(start - 3.0) > 1e-9)
      REQUIRE(row.actuator_effort[0] == Grip(start));
    if (t <= 1.5) held_slip = std::max(held_slip, std::abs(z(row) - z0));
    if (t >= 1.55 && t <= 3.0) {
      const double accel = (vz - run.rows[i - 1].body_linear_velocity(2, handle)) / dt;
      accel_error = std::max(accel_error, std::abs(accel + a));
    }
    if (t >= 1.6 && t <= 3.0) glide_error = std::max(glide_error, std::abs(row.q[q_l] + dt * mu * std::abs(vz)));
    if (t > 3.0 && caught_at < 0 && std::abs(vz) < 1e-4) caught_at = t;
    if (t >= 3.1) caught_slip = std::max(caught_slip, std::abs(z(row) - z_caught_ref));
  }
  const double drop = z(row_at(1.5)) - z(row_at(3.0));
  const double further = z(row_at(3.0)) - z(run.rows.back());
  INFO("momentum error " << worst_error << ", |q_l + q_r| " << asymmetry << " (yield " << yield
                         << "), held slip " << held_slip << ", drop " << drop << " (a T^2/2 = "
                         << a * 1.5 * 1.5 / 2 << "), acceleration error " << accel_error
                         << ", glide error " << glide_error << ", caught at " << caught_at
                         << " after " << further << " m, then slip " << caught_slip);
  CHECK(asymmetry < 9e-8);
  CHECK(asymmetry <= yield * 1.01);
  CHECK(held_slip < 1e-5);
  CHECK(accel_error < 1e-5);
  CHECK(drop == Approx(a * 1.5 * 1.5 / 2).epsilon(0.01));
  CHECK(glide_error < 1e-6);
  // The gliding gap is real: at 3 s each finger stands 0.44 mm off the handle.
  CHECK(-row_at(3.0).q[q_l] > 4e-4);
  CHECK(caught_at > 3.0);
  CHECK(caught_at <= 3.01);
  CHECK(further < 2e-3);
  CHECK(caught_slip < 1e-5);
}

}  // namespace
}  // namespace csim::scenes
