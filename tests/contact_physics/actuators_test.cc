// Joint actuators through whole runs (docs/design/actuators-and-constraints.md §2, §7),
// against closed forms: a PD servo on a free slider against the affine recurrence of the
// discrete system (§2.6), a saturated servo accelerating at exactly e / m, a pendulum held
// still by its gravity feed-forward, a rigid servo (kp = 1e12) that stays bounded, a ramp
// tracked without lag, and a force actuator whose clamped square-wave effort is the
// slider's mass times its acceleration.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Dense>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/theta_method.h"
#include "engine/solver/sap_pd_constraint.h"
#include "tests/contact_physics/physics_helpers.h"
#include "tests/support/allocation_counter.h"

namespace csim::contact_physics {
namespace {

// A slider of mass MASS along x without gravity, one actuator ACTUATOR on it, and a
// trajectory `ref` (TRAJECTORY: its interpolation and keyframes).
const char* kSlider = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: DURATION, integrator: INTEGRATOR, gravity: [0, 0, 0]}
signals:
  push: {type: square, low: -3, high: 10, period: 0.1, duty: 0.5}
bodies:
  - {name: slider, mass: MASS, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
joints:
  - {name: slide, type: prismatic, parent: world, child: slider, axis: [1, 0, 0],
     initial: {q: [Q0]}}
trajectories:
  ref: TRAJECTORY
actuators:
  - ACTUATOR
)";

std::string Slider(double mass, double q0, const std::string& integrator, double duration,
                   const std::string& trajectory, const std::string& actuator) {
  std::string s = Fill(kSlider, "DURATION", Num(duration));
  s = Fill(s, "INTEGRATOR", integrator);
  s = Fill(s, "MASS", Num(mass));
  s = Fill(s, "Q0", Num(q0));
  s = Fill(s, "TRAJECTORY", trajectory);
  return Fill(s, "ACTUATOR", actuator);
}

const char* kHoldAtZero =
    "{joints: [slide], interpolation: linear, keyframes: [{t: 0, q: 0}, {t: 100, q: 0}]}";

TEST_CASE("a PD servo on a free slider follows the affine recurrence of the discrete system "
          "step by step", "[actuators][robots]") {
  const double m = 2.0, kp = 50.0, kd = 3.0, dt = 1e-3, q0 = 0.3;
  for (const auto& [integrator, theta_q] :
       {std::pair{"symplectic_euler", 1.0}, std::pair{"midpoint", 0.5},
        std::pair{"explicit_euler", 0.0}}) {
    INFO(integrator);
    const SceneRun run = RunScene(Slider(
        m, q0, integrator, 0.5, kHoldAtZero,
        "{name: servo, joint: slide, kp: 50, kd: 3, target: ref}"));
    // docs/design/actuators-and-constraints.md §2.6 with q_d = v_d = u0 = 0: L z' = M z.
    Eigen::Matrix2d L, M;
    L << 1, -dt * theta_q, dt * kp, m + dt * kd;
    M << 1, dt * (1 - theta_q), 0, m;
    const Eigen::Matrix2d T = L.inverse() * M;
    Eigen::Vector2d z(q0, 0.0);
    REQUIRE(run.rows.size() == 501);
    for (const sim::Row& row : run.rows) {
      INFO("step " << row.step);
      // Relative to the motion's scale (q0, and q0 sqrt(kp / m) for v): the state passes
      // through zero, where a relative error of the value itself means nothing.
      REQUIRE(row.q[0] == Approx(z[0]).margin(1e-12 * q0));
      REQUIRE(row.v[0] == Approx(z[1]).margin(1e-12 * q0 * std::sqrt(kp / m)));
      if (row.step > 0) {
        // The effort is the impulse over dt: m (v' - v) / dt with no other force; here
        // -kp q' - kd v' at the end of the step.
        REQUIRE(row.actuator_effort[0] ==
                Approx(-kp * z[0] - kd * z[1]).epsilon(1e-9).margin(1e-12));
        REQUIRE(row.actuator_saturated[0] == 0);
        REQUIRE(row.actuator_q_target[0] == 0.0);
      }
      z = T * z;
    }
  }
}

TEST_CASE("a saturated servo accelerates at exactly e / m until it enters the band",
          "[actuators][robots]") {
  const double m = 2.0, e = 4.0, dt = 1e-3;
  const SceneRun run = RunScene(Slider(
      m, 0.0, "symplectic_euler", 1.5,
      "{joints: [slide], interpolation: linear, keyframes: [{t: 0, q: 1}, {t: 100, q: 1}]}",
      "{name: servo, joint: slide, kp: 1000, kd: 50, effort_limit: 4, target: ref}"));
  // The first phase: saturated from the first step on.
  size_t i = 1;
  for (; i < run.rows.size() && run.rows[i].actuator_saturated[0]; ++i) {
    const sim::Row& row = run.rows[i];
    // Symplectic Euler on a constant acceleration e / m from rest: v_n = n dt e / m.
    REQUIRE(row.actuator_effort[0] == Approx(e).epsilon(1e-14));
    REQUIRE(row.v[0] == Approx(row.step * dt * e / m).epsilon(1e-12));
  }
  const size_t saturated_steps = i - 1;
  CHECK(saturated_steps > 100);
  // Then inside the band (or saturated again while it brakes): never beyond the limit.
  REQUIRE(i < run.rows.size());
  for (; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    REQUIRE(std::abs(row.actuator_effort[0]) <= e * (1 + 1e-14));
    if (row.actuator_saturated[0])
      REQUIRE(std::abs(row.actuator_effort[0]) == Approx(e).epsilon(1e-14));
  }
}

// A 1 kg bob 1 m from a hinge about y, started at q0 = 0.7 rad.
const char* kArm = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0, integrator: INTEGRATOR}
bodies:
  - name: bob
    mass: 1.0
    geometry: [{shape: sphere, radius: 0.05, pose: {position: [0, 0, -1.0]}}]
joints:
  - {name: hinge, type: revolute, parent: world, child: bob, axis: [0, 1, 0],
     initial: {q: [0.7]}}
actuators:
  - {name: motor, joint: hinge, kp: 0, kd: 2, feedforward: gravity}
)";

TEST_CASE("a gravity feed-forward with kp = 0 holds an arm still at its initial angle",
          "[actuators][robots]") {
  for (const std::string integrator : {"symplectic_euler", "midpoint"}) {
    INFO(integrator);
    const SceneRun run = RunScene(Fill(kArm, "INTEGRATOR", integrator));
    const double torque = 1.0 * 9.81 * 1.0 * std::sin(0.7);  // m g L sin(q0)
    const multibody::Actuator& a = run.scene.model.actuators.at(0);
    CHECK(std::abs(a.feedforward) == Approx(torque).epsilon(1e-12));
    // symplectic_euler evaluates gravity at the step's start, q0, where the feed-forward
    // balances it exactly: the arm stays put to round-off. midpoint evaluates it at
    // q_theta of the free motion v* (one step's fall, dt g sin(q0) / L), and the solve
    // around v* leaves the difference, dt^2 / 2 |v*| m g L cos(q0) ~ 2e-8 N m s per step,
    // which the velocity servo (kd = 2) turns into a creep below 1e-5 rad/s.
    const bool exact = integrator == "symplectic_euler";
    for (const sim::Row& row : run.rows) {
      REQUIRE(std::abs(row.q[0] - 0.7) < (exact ? 1e-9 : 1e-5));
      REQUIRE(std::abs(row.v[0]) < (exact ? 1e-9 : 1e-5));
      if (row.step > 0)
        REQUIRE(std::abs(row.actuator_effort[0]) == Approx(torque).epsilon(exact ? 1e-8 : 1e-5));
    }
  }
}

TEST_CASE("a near-rigid servo (kp = 1e12) stays bounded, and the gain clamp keeps kd / kp",
          "[actuators][robots]") {
  // The constraint's own clamp: both gains scaled by one factor.
  solver::SapPdParameters p;
  p.kp = 1e12;
  p.kd = 1e10;
  solver::SapPdConstraint c(p);
  c.Prepare(1e-3, 1.0 / 2.0);
  REQUIRE(c.gains_clamped());
  CHECK(c.effective_kd() / c.effective_kp() == Approx(1e-2).epsilon(1e-14));
  for (const std::string integrator : {"symplectic_euler", "midpoint"}) {
    INFO(integrator);
    const SceneRun run = RunScene(Slider(
        2.0, 0.0, integrator, 2.0,
        "{joints: [slide], interpolation: linear, keyframes: [{t: 0, q: 0.5}, {t: 100, q: 0.5}]}",
        "{name: servo, joint: slide, kp: 1.0e12, kd: 1.0e10, target: ref}"));
    for (const sim::Row& row : run.rows) {
      REQUIRE(std::isfinite(row.q[0]));
      REQUIRE(std::abs(row.q[0]) <= 0.5 + 1e-6);  // over-damped: no overshoot
    }
    CHECK(run.rows.back().q[0] == Approx(0.5).margin(1e-9));
  }
}

TEST_CASE("a pure kp servo tracks a ramp with no steady-state lag (targets at the end of "
          "the step)", "[actuators][robots]") {
  const double a = 0.2, dt = 1e-3;
  const SceneRun run = RunScene(Slider(
      1.0, 0.0, "symplectic_euler", 6.0,
      "{joints: [slide], interpolation: linear, keyframes: [{t: 0, q: 0}, {t: 100, q: 20}]}",
      "{name: servo, joint: slide, kp: 1.0e4, target: ref}"));
  for (const sim::Row& row : run.rows) {
    if (row.step == 0) continue;
    // Targets sampled at the end of the step: the row's own time.
    REQUIRE(row.actuator_q_target[0] == Approx(a * row.time).epsilon(1e-14));
    REQUIRE(row.actuator_v_target[0] == Approx(a).epsilon(1e-14));
    if (row.time >= 5.0) {
      REQUIRE(std::abs(row.q[0] - a * row.time) < 1e-10);
      REQUIRE(std::abs(row.v[0] - a) < 1e-9);
    }
  }
  (void)dt;
}

TEST_CASE("a force actuator's square-wave feed-forward, clamped to its limit, is the "
          "slider's mass times its acceleration", "[actuators][robots]") {
  const double m = 2.0, e = 4.0, dt = 1e-3;
  const SceneRun run = RunScene(Slider(
      m, 0.0, "symplectic_euler", 0.5, kHoldAtZero,
      "{name: thruster, joint: slide, effort_limit: 4, feedforward: push}"));
  REQUIRE_FALSE(run.scene.model.actuators.at(0).pd);
  int high = 0, low = 0;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    const double t0 = run.rows[i - 1].time;
    // The square wave at the step's start, high (10) or low (-3), clamped to +-e.
    const double signal = run.scene.model.signals.Evaluate(0, t0);
    REQUIRE((signal == 10.0 || signal == -3.0));
    const double u = std::clamp(signal, -e, e);
    (signal > 0 ? high : low) += 1;
    REQUIRE((row.v[0] - run.rows[i - 1].v[0]) == Approx(dt * u / m).epsilon(1e-10));
    REQUIRE(row.actuator_effort[0] == u);
    REQUIRE(row.actuator_saturated[0] == (signal > 0 ? 1 : 0));
    REQUIRE(std::isnan(row.actuator_q_target[0]));
    REQUIRE(std::isnan(row.actuator_v_target[0]));
  }
  CHECK(std::abs(high - 250) <= 10);  // half the steps each, up to edges rounding either way
  CHECK(std::abs(low - 250) <= 10);
}

TEST_CASE("a warmed-up step with PD and force actuators allocates nothing",
          "[actuators][robots][allocation]") {
  const SceneRun run = RunScene(Slider(
      2.0, 0.1, "symplectic_euler", 0.01,
      "{joints: [slide], interpolation: pchip, keyframes: [{t: 0, q: 0}, {t: 1, q: 1}]}",
      "{name: servo, joint: slide, kp: 100, kd: 5, effort_limit: 3, target: ref, "
      "feedforward: push}"));
  // The same model with a force actuator on a second slider.
  const io::LoadedScene scene = io::LoadSceneFromText(R"(
csim: 1
signals: {push: {type: square, low: -3, high: 10, period: 0.1}}
bodies:
  - {name: a, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
  - {name: b, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
joints:
  - {name: ja, type: prismatic, parent: world, child: a, axis: [1, 0, 0]}
  - {name: jb, type: revolute, parent: a, child: b, axis: [0, 1, 0]}
trajectories:
  ref: {joints: [ja], keyframes: [{t: 0, q: 0}, {t: 1, q: 1}]}
actuators:
  - {name: servo, joint: ja, kp: 100, damping_ratio: 1, effort_limit: 3, target: ref,
     feedforward: push}
  - {name: thruster, joint: jb, effort_limit: 4, feedforward: push}
)", "actuators.yaml", {});
  for (const multibody::Model* model : {&run.scene.model, &scene.model}) {
    for (const integrator::ThetaParameters& p :
         {integrator::ThetaParameters{0.0, 1.0, integrator::Gyroscopic::kImplicit},
          integrator::ThetaParameters{0.5, 0.5, integrator::Gyroscopic::kImplicit}}) {
      integrator::StepWorkspace ws =
          integrator::MakeStepWorkspace(*model, integrator::TreeSolver::kAuto);
      integrator::ContactStepWorkspace cws(*model);
      multibody::State s{0.0, model->InitialQ(), model->InitialV()};
      for (int n = 0; n < 5; ++n)
        REQUIRE(integrator::StepWithContact(*model, p, {}, {}, 1e-3, true, s, ws, cws).ok());
      const std::size_t before = testing::AllocationCount();
      for (int n = 0; n < 20; ++n)
        integrator::StepWithContact(*model, p, {}, {}, 1e-3, true, s, ws, cws);
      CHECK(testing::AllocationCount() - before == 0);
    }
  }
}

}  // namespace
}  // namespace csim::contact_physics
