// scenes/dry_friction.yaml: two pendulums whose hinges hold 2 N m of dry friction, one
// below the limit (held at 0.3 rad) and one above it (released at 1.2 rad), and a wheel
// slowed by friction on an axle with a rotor. Oracles: the near-rigid creep bound R dt f_s,
// the net torque m g L sin q - f_s, the turning point where the friction's work equals the
// drop of potential energy, and the stopping time (I + armature) w0 / f_s.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/dry_friction.yaml: a pendulum below the friction limit holds, one above it "
          "swings once and stops where friction took its energy, a wheel stops at (I + a) w0 / f_s",
          "[scenes][joint-friction]") {
  const SceneRun run = RunSceneFile("dry_friction.yaml");
  const double m = 1.0, L = 0.5, r = 0.05, g = 9.81, f_s = 2.0, dt = 1e-3, duration = 3.0;
  const double I = m * L * L + 0.4 * m * r * r;
  // The friction constraint's regularization, R = beta^2 / (4 pi^2) w with beta = 0.1 and
  // w = 1 / A_jj = 1 / I (symplectic Euler, no damping).
  const double R = 0.01 / (4 * kPi * kPi) / I;
  const auto& joints = run.scene.model.joints;
  const int held = joints[run.Body("held_bob")].v_start;
  const int swinging = joints[run.Body("swinging_bob")].v_start;
  const int wheel = joints[run.Body("wheel")].v_start;
  REQUIRE(run.rows.size() == 3001);

  SECTION("held: creeps no faster than R dt f_s, its friction balancing gravity") {
    double fastest = 0.0;
    for (const sim::Row& row : run.rows) fastest = std::max(fastest, std::abs(row.v[held]));
    CHECK(fastest <= R * dt * f_s);
    const sim::Row& last = run.rows.back();
    CHECK(std::abs(last.q[held] - 0.3) <= duration * R * dt * f_s);
    CHECK(last.joint_friction[held] == Approx(m * g * L * std::sin(last.q[held])).epsilon(1e-6));
  }

  SECTION("swinging: accelerates at (m g L sin q0 - f_s) / I, then rests at the turning point") {
    const double q0 = 1.2;
    // The first step from rest slides (the torque exceeds f_s), so its friction impulse is
    // exactly dt f_s: symplectic Euler's v_1 = -dt (m g L sin q0 - f_s) / I.
    const double v1 = -dt * (m * g * L * std::sin(q0) - f_s) / I;
    CHECK(run.rows[1].v[swinging] == Approx(v1).epsilon(1e-9));
    CHECK(run.rows[1].joint_friction[swinging] == Approx(f_s).epsilon(1e-12));
    // The turning point q1 < 0 of the first swing: m g L (cos q1 - cos q0) = f_s (q0 - q1),
    // by bisection on [-q0, 0] (the left side minus the right is positive at 0, negative at
    // -q0).
    const auto balance = [&](double q) {
      return m * g * L * (std::cos(q) - std::cos(q0)) - f_s * (q0 - q);
    };
    double lo = -q0, hi = 0.0;
    for (int i = 0; i < 100; ++i) (balance(0.5 * (lo + hi)) > 0 ? hi : lo) = 0.5 * (lo + hi);
    const double q1 = 0.5 * (lo + hi);
    REQUIRE(m * g * L * std::abs(std::sin(q1)) < f_s);  // friction can hold it there
    // It never swings back: from the turning point on the velocity stays in the creep band.
    const auto turn = std::find_if(run.rows.begin() + 1, run.rows.end(),
                                   [&](const sim::Row& row) { return row.v[swinging] >= 0.0; });
    REQUIRE(turn != run.rows.end());
    for (auto row = turn; row != run.rows.end(); ++row)
      REQUIRE(std::abs(row->v[swinging]) <= R * dt * f_s);
    // Symplectic Euler's energy error, of order omega dt, shifts the turning point slightly.
    CHECK(run.rows.back().q[swinging] == Approx(q1).margin(1e-4));
  }

  SECTION("wheel: slows at f_s / (I + a) and stops at (I + a) w0 / f_s, to a step") {
    const double I_wheel = 0.5 * 2.0 * 0.2 * 0.2 + 0.01, f_wheel = 0.1, w0 = 5.0;
    const double alpha = f_wheel / I_wheel, t_stop = I_wheel * w0 / f_wheel;
    const double R_wheel = 0.01 / (4 * kPi * kPi) / I_wheel;
    for (const sim::Row& row : run.rows) {
      if (row.time < t_stop - dt) {
        // Sliding: the impulse is exactly dt f_s, so the velocity falls by dt alpha a step.
        REQUIRE(row.v[wheel] == Approx(w0 - row.step * dt * alpha).margin(1e-12));
        if (row.step > 0) REQUIRE(row.joint_friction[wheel] == Approx(-f_wheel).epsilon(1e-12));
      } else if (row.time > t_stop + dt) {
        REQUIRE(std::abs(row.v[wheel]) <= R_wheel * dt * f_wheel);
      }
    }
  }
}

}  // namespace
}  // namespace csim::scenes
