// External loads through the scene file and the run loop (scene-format.md "loads";
// engine/multibody/external_loads.h). Oracles: Newton's second law for a free body without
// gravity (a = F / m), Euler's equations about a principal axis (omega_dot = tau / I), the
// moment of a force about the centre of mass (p x F), and a square wave's switching instants:
// the load is explicit, sampled at each step's start, so a step that starts while the wave
// is high receives dt F / m and one that starts while it is low receives nothing.

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/integrator/theta_method.h"
#include "tests/contact_physics/physics_helpers.h"
#include "tests/support/allocation_counter.h"

namespace csim::contact_physics {
namespace {

// A 2 kg box (0.1 x 0.2 x 0.4 m: principal moments m (b^2 + c^2) / 12, ...) without
// gravity, at rest at the origin, under the loads of LOADS.
const char* kBox = R"(
csim: 1
settings: {time_step: DT, duration: DURATION, integrator: INTEGRATOR, gravity: [0, 0, 0]}
SIGNALS
bodies:
  - {name: box, mass: 2.0, geometry: [{shape: box, size: [0.1, 0.2, 0.4]}]}
loads:
LOADS
)";

std::string BoxScene(const std::string& loads, const std::string& signals = "",
                     const std::string& integrator = "symplectic_euler",
                     const std::string& dt = "1.0e-3", const std::string& duration = "1.0") {
  std::string text = Fill(kBox, "LOADS", loads);
  text = Fill(text, "SIGNALS", signals);
  text = Fill(text, "INTEGRATOR", integrator);
  text = Fill(text, "DURATION", duration);
  return Fill(text, "DT", dt);
}

constexpr double kMass = 2.0;
const Eigen::Vector3d kMoments(kMass * (0.04 + 0.16) / 12, kMass * (0.01 + 0.16) / 12,
                               kMass * (0.01 + 0.04) / 12);

TEST_CASE("a constant world force accelerates a free body at F / m", "[contact-physics][loads]") {
  for (const std::string integrator : {"symplectic_euler", "midpoint", "implicit_euler"}) {
    INFO(integrator);
    const SceneRun run = RunScene(BoxScene("  - {body: box, force: [3, -1, 0.5]}", "", integrator));
    const Eigen::Vector3d a = Eigen::Vector3d(3, -1, 0.5) / kMass;
    for (const sim::Row& row : run.rows) {
      INFO("t = " << row.time);
      // v = [omega; v_origin]: no rotation, and the origin gains a t.
      CHECK(row.v.head<3>().norm() < 1e-15);
      CHECK((row.v.tail<3>() - a * row.time).norm() < 1e-13);
    }
  }
}

TEST_CASE("a torque about a principal axis spins a free body at tau / I",
          "[contact-physics][loads]") {
  // About each principal axis, in world axes and in body axes (the same here: the body
  // turns about the torque's own axis, which stays fixed).
  for (int axis = 0; axis < 3; ++axis)
    for (const std::string frame : {"world", "body"}) {
      INFO("axis " << axis << ", frame " << frame);
      Eigen::Vector3d tau = Eigen::Vector3d::Zero();
      tau[axis] = 0.01;
      const std::string torque = "[" + Num(tau[0]) + ", " + Num(tau[1]) + ", " + Num(tau[2]) + "]";
      const SceneRun run =
          RunScene(BoxScene("  - {body: box, torque: " + torque + ", frame: " + frame + "}"));
      for (const sim::Row& row : run.rows) {
        INFO("t = " << row.time);
        Eigen::Vector3d omega = Eigen::Vector3d::Zero();
        omega[axis] = tau[axis] / kMoments[axis] * row.time;
        CHECK((row.v.head<3>() - omega).norm() < 1e-12 * (1 + omega.norm()));
        CHECK(row.v.tail<3>().norm() < 1e-15);
      }
    }
}

TEST_CASE("a force at an offset point adds the torque p x F", "[contact-physics][loads]") {
  // F = [0, 0, 2] N at p = [0, 0.1, 0] (body frame) in body axes: the moment about the
  // centre of mass (the origin) is p x F = [0.2, 0, 0] N m, about the first principal axis,
  // and stays so as the body turns about it. The force turns with the body, so its
  // direction is [0, -sin theta, cos theta] with theta = tau t^2 / (2 I).
  const SceneRun run = RunScene(
      BoxScene("  - {body: box, point: [0, 0.1, 0], force: [0, 0, 2], frame: body}", "",
               "midpoint", "1.0e-4", "0.5"));
  const double tau = 0.2, dt = 1e-4;
  for (const sim::Row& row : run.rows) {
    INFO("t = " << row.time);
    CHECK(row.v[0] == Approx(tau / kMoments[0] * row.time).margin(1e-12));
    CHECK(std::abs(row.v[1]) + std::abs(row.v[2]) < 1e-12);
  }
  // The first step from rest, in world axes before any rotation: v = dt F / m.
  const sim::Row& first = run.rows[1];
  CHECK(first.v[5] == Approx(dt * 2.0 / kMass).epsilon(1e-12));
  // At the end the centre of mass has gained the integral of the turning force:
  // m v = integral of 2 [0, -sin theta, cos theta] dt, which the test integrates itself.
  const double T = run.rows.back().time;
  double py = 0.0, pz = 0.0;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    const double t = (k + 0.5) * T / n;
    const double theta = tau * t * t / (2 * kMoments[0]);
    py += -2.0 * std::sin(theta) * T / n;
    pz += 2.0 * std::cos(theta) * T / n;
  }
  CHECK(kMass * run.rows.back().v[4] == Approx(py).epsilon(1e-3));
  CHECK(kMass * run.rows.back().v[5] == Approx(pz).epsilon(1e-3));
}

TEST_CASE("a square-wave signal switches a load at the wave's edges", "[contact-physics][loads]") {
  // dt = 2^-10 s and edges at multiples of 2^-5 s: every time is exact in binary. The wave
  // (period 0.125 s, duty 0.5, phase 0.03125 s) is 1 while (t + 0.03125) mod 0.125 < 0.0625
  // and 0 otherwise, so its edges fall at t = 0.09375 + 0.125 m (rising) and
  // t = 0.03125 + 0.125 m (falling).
  const std::string signals =
      "signals:\n  push: {type: square, low: 0, high: 1, period: 0.125, duty: 0.5, "
      "phase: 0.03125}";
  const SceneRun run = RunScene(BoxScene("  - {body: box, force: [4, 0, 0], signal: push}",
                                         signals, "symplectic_euler", "0.0009765625", "0.5"));
  const double dt = 0.0009765625, a = 4.0 / kMass;
  int high_steps = 0;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const double t0 = run.rows[i - 1].time;
    const double phase = std::fmod(t0 + 0.03125, 0.125);
    const bool high = phase < 0.0625;
    high_steps += high;
    INFO("step from t = " << t0);
    CHECK(run.rows[i].v[3] - run.rows[i - 1].v[3] == Approx(high ? a * dt : 0.0).margin(1e-14));
  }
  // Half the steps are high, and the velocity at the end is a times the time spent high.
  CHECK(high_steps == 256);
  CHECK(run.rows.back().v[3] == Approx(a * 0.25).epsilon(1e-12));
  // At the defining instants: the first falling edge at 0.03125 s and the next rising one
  // at 0.09375 s bound a plateau.
  const auto v_at = [&](double t) { return run.rows[static_cast<size_t>(std::lround(t / dt))].v[3]; };
  CHECK(v_at(0.03125) == Approx(a * 0.03125).epsilon(1e-12));
  CHECK(v_at(0.09375) == Approx(a * 0.03125).epsilon(1e-12));
  CHECK(v_at(0.15625) == Approx(a * 0.09375).epsilon(1e-12));
}

TEST_CASE("a warmed-up step with signal-scaled loads and a prescribed table allocates nothing",
          "[contact-physics][loads][allocation]") {
  const io::LoadedScene scene = io::LoadSceneFromText(R"(
csim: 1
signals:
  wave: {type: sine, amplitude: 2, frequency: 1}
  ramp: {type: table, interpolation: pchip, points: [[0, 0], [0.5, 1], [1, 0.5]]}
  both: {type: sum, of: [wave, ramp]}
bodies:
  - {name: cart, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
  - {name: arm, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
  - {name: box, mass: 1, inertia: [0.1, 0.2, 0.3, 0, 0, 0]}
joints:
  - {name: rail, type: prismatic, parent: world, child: cart, prescribed: {type: table, trajectory: path}}
  - {name: hinge, type: revolute, parent: cart, child: arm, axis: [0, 1, 0]}
trajectories:
  path: {joints: [rail], keyframes: [{t: 0, q: 0}, {t: 0.5, q: 0.2}, {t: 1, q: 0}], after: repeat}
loads:
  - {body: arm, point: [0.1, 0, 0], force: [0, 0, 1], signal: both}
  - {body: box, torque: [0, 0, 1], frame: body, signal: wave}
)", "loads.yaml", {});
  const multibody::Model& model = scene.model;
  for (const integrator::ThetaParameters& p :
       {integrator::ThetaParameters{0.0, 1.0, integrator::Gyroscopic::kImplicit},
        integrator::ThetaParameters{0.5, 0.5, integrator::Gyroscopic::kImplicit}}) {
    integrator::StepWorkspace ws = integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
    multibody::State s{0.0, model.InitialQ(), model.InitialV()};
    REQUIRE(integrator::StepFreeMotion(model, p, {}, 1e-3, s, ws).ok());
    const std::size_t before = testing::AllocationCount();
    for (int n = 0; n < 20; ++n) integrator::StepFreeMotion(model, p, {}, 1e-3, s, ws);
    CHECK(testing::AllocationCount() - before == 0);
  }
}

}  // namespace
}  // namespace csim::contact_physics
