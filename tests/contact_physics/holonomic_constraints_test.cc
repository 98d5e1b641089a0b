// Holonomic constraints (scene `constraints:`, engine/contact/holonomic_constraint_builder.h)
// against oracles derived without csim: a distance-constraint pendulum has the revolute
// pendulum's period and the closed form's, a weld holds its load with the momentum error
// under the solver's certificate and the weld force equal to the weight, a coupler of ratio
// -1 keeps two fingers symmetric (the violation halving every step, docs/design/
// actuators-and-constraints.md §4.2) while the pair accelerates as one mass 2m, and bodies
// joined by a ball or weld constraint stop colliding unless it says `collide: true`.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/contact/collision_setup.h"
#include "tests/contact_physics/physics_helpers.h"
#include "tests/scenes/scene_run.h"

namespace csim::contact_physics {
namespace {

using scenes::ArithmeticGeometricMean;
using scenes::kPi;
using scenes::ZeroCrossings;

// Mean period of the x coordinate of body b's origin (zero crossings, two per period).
double Period(const SceneRun& run, int b) {
  std::vector<double> t, x;
  for (const sim::Row& row : run.rows) {
    t.push_back(row.time);
    x.push_back(row.body_position(0, b));
  }
  const std::vector<double> crossings = ZeroCrossings(t, x);
  REQUIRE(crossings.size() >= 3);
  return 2.0 * (crossings.back() - crossings.front()) / (crossings.size() - 1);
}

TEST_CASE("a distance-constraint pendulum has the revolute pendulum's period and the closed "
          "form's", "[constraints]") {
  // A 1 kg bob (a sphere of radius 1 cm) 1 m from its pivot, released at theta0 = 0.1 rad.
  // On the distance constraint the bob's spin is free, so it is a point mass: period
  // 2 pi sqrt(L/g) / AGM(1, cos(theta0 / 2)). On the revolute joint its inertia about the
  // pivot is m L^2 + 2/5 m r^2, a period longer by sqrt(1 + 0.4 r^2 / L^2) - 1 = 2e-5.
  const double L = 1.0, g = 9.81, theta0 = 0.1;
  const std::string x0 = std::to_string(L * std::sin(theta0));
  const std::string z0 = std::to_string(2.0 - L * std::cos(theta0));
  const std::string settings =
      "csim: 1\n"
      "settings: {time_step: 1.0e-3, duration: 6.5, integrator: symplectic_euler}\n";
  const SceneRun distance = RunScene(
      settings +
      "bodies:\n"
      "  - {name: bob, mass: 1, geometry: [{shape: sphere, radius: 0.01}],\n"
      "     pose: {position: [" + x0 + ", 0, " + z0 + "]}}\n"
      "constraints:\n"
      "  - {type: distance, body_a: world, point_a: [0, 0, 2], body_b: bob, length: 1}\n");
  const SceneRun revolute = RunScene(
      settings +
      "bodies:\n"
      "  - {name: bob, mass: 1, geometry: [{shape: sphere, radius: 0.01,\n"
      "     pose: {position: [0, 0, -1]}}]}\n"
      "joints:\n"
      "  - {name: hinge, type: revolute, parent: world, child: bob, axis: [0, -1, 0],\n"
      "     pose: {position: [0, 0, 2]}, initial: {q: [" + std::to_string(theta0) + "]}}\n");
  const double closed_form = 2 * kPi * std::sqrt(L / g) / ArithmeticGeometricMean(1.0, std::cos(theta0 / 2));
  const double T_distance = Period(distance, distance.Body("bob"));
  // The revolute bob's origin is at the pivot: its geometry's centre gives x.
  std::vector<double> t, x;
  for (const sim::Row& row : revolute.rows) {
    t.push_back(row.time);
    const double q = row.q[0];
    x.push_back(L * std::sin(q));
  }
  const std::vector<double> crossings = ZeroCrossings(t, x);
  REQUIRE(crossings.size() >= 3);
  const double T_revolute = 2.0 * (crossings.back() - crossings.front()) / (crossings.size() - 1);
  Report("distance pendulum period [s]", T_distance, closed_form);
  Report("revolute pendulum period [s]", T_revolute, closed_form);
  CHECK(T_distance == Approx(T_revolute).epsilon(1e-3));
  CHECK(T_distance == Approx(closed_form).epsilon(1e-3));
  CHECK(T_distance == Approx(2 * kPi * std::sqrt(L / g)).epsilon(2e-3));  // small angle
  // The rod stays at its length: the near-rigid violation is far below a micrometre.
  double worst = 0.0;
  for (const sim::Row& row : distance.rows)
    worst = std::max(worst, std::abs((row.body_position.col(0) - Eigen::Vector3d(0, 0, 2)).norm() - L));
  CHECK(worst < 1e-6);
  // The rod's tension at the bottom of the swing: m g + m v^2 / L along +z, pulling the bob
  // towards the pivot (a negative impulse: gamma > 0 pushes Q away from P).
  for (const sim::Row& row : distance.rows) {
    if (row.step == 0 || std::abs(row.body_position(0, 0)) > 1e-3) continue;
    const double v2 = row.body_linear_velocity.col(0).squaredNorm();
    CHECK(-row.constraint_impulse[0] / distance.scene.settings.time_step ==
          Approx(g + v2 / L).epsilon(1e-2));
  }
}

TEST_CASE("a weld holds its load: the weld force is the weight, the momentum error is under "
          "the certificate and the drift is small", "[constraints]") {
  // A 2 kg box welded to the world at (0, 0, 1), rolled by 0.2 rad, and a 3 kg box welded
  // 0.2 m below it along the holder's own -z (a weld across two trees). Both welds are at
  // the boxes' centres of mass.
  const double g = 9.81, tolerance = 1e-6;  // the default solver.relative_tolerance
  const double roll = 0.2;
  const Eigen::Vector3d p_load(0, 0.2 * std::sin(roll), 1 - 0.2 * std::cos(roll));
  const SceneRun run = RunScene(
      "csim: 1\n"
      "settings: {time_step: 1.0e-3, duration: 1.0}\n"
      "bodies:\n"
      "  - {name: holder, mass: 2, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}],\n"
      "     pose: {position: [0, 0, 1], rpy: [0.2, 0, 0]}}\n"
      "  - {name: load, mass: 3, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}],\n"
      "     pose: {position: [0, " + std::to_string(p_load.y()) + ", " +
      std::to_string(p_load.z()) + "], rpy: [0.2, 0, 0]}}\n"
      "constraints:\n"
      "  - {type: weld, body_a: world, pose_a: {position: [0, 0, 1], rpy: [0.2, 0, 0]},\n"
      "     body_b: holder}\n"
      "  - {type: weld, body_a: holder, pose_a: {position: [0, 0, -0.2]}, body_b: load}\n");
  const int holder = run.Body("holder"), load = run.Body("load");
  REQUIRE(run.rows.size() == 1001);
  double drift = 0.0;
  for (const sim::Row& row : run.rows) {
    REQUIRE(row.solver.momentum_error <= tolerance);
    drift = std::max({drift, (row.body_position.col(holder) - Eigen::Vector3d(0, 0, 1)).norm(),
                      (row.body_position.col(load) - p_load).norm()});
  }
  CHECK(drift < 1e-5);
  // Rows 0-2 of a weld: the angular impulse on B; rows 3-5: the impulse on B, world axes. The holder's
  // weld carries both weights, the load's weld the load's alone.
  const sim::Row& last = run.rows.back();
  const Eigen::VectorXd force = last.constraint_impulse / run.scene.settings.time_step;
  CHECK(force.segment<3>(3).isApprox(Eigen::Vector3d(0, 0, 5 * g), 1e-5));
  CHECK(force.segment<3>(9).isApprox(Eigen::Vector3d(0, 0, 3 * g), 1e-5));
  CHECK(force.segment<3>(6).norm() < 1e-5 * 3 * g);
  // The holder's weld also balances the moment of the load's weight about the holder's
  // origin, r x (-3 g z) with r = p_load - (0, 0, 1): a torque 3 g (r_y, -r_x, 0).
  CHECK(force.segment<3>(0).isApprox(
      Eigen::Vector3d(3 * g * (p_load.y()), 0, 0), 1e-4));
}

TEST_CASE("a coupler of ratio -1 keeps two pushed prismatic fingers symmetric", "[constraints]") {
  // Two 0.5 kg fingers sliding along x on the world, q_left = -q_right, started 1 cm out of
  // symmetry; a 2 N push on the right finger, no gravity. Rigid limit: both accelerate as
  // one mass of 1 kg, q_right = F t^2 / (2 (m_l + m_r)), and q_left = -q_right.
  const SceneRun run = RunScene(
      "csim: 1\n"
      "settings: {time_step: 1.0e-3, duration: 0.5, gravity: [0, 0, 0]}\n"
      "bodies:\n"
      "  - {name: left, mass: 0.5, geometry: [{shape: box, size: [0.02, 0.02, 0.05]}]}\n"
      "  - {name: right, mass: 0.5, geometry: [{shape: box, size: [0.02, 0.02, 0.05]}]}\n"
      "joints:\n"
      "  - {name: slide_l, type: prismatic, parent: world, child: left, axis: [1, 0, 0],\n"
      "     pose: {position: [-0.1, 0, 0]}, initial: {q: [0.01]}}\n"
      "  - {name: slide_r, type: prismatic, parent: world, child: right, axis: [1, 0, 0],\n"
      "     pose: {position: [0.1, 0, 0]}}\n"
      "loads:\n"
      "  - {body: right, force: [2, 0, 0]}\n"
      "constraints:\n"
      "  - {type: coupler, joint: slide_l, follows: slide_r, ratio: -1}\n");
  const auto& joints = run.scene.model.joints;
  const int l = joints[run.Body("left")].q_start, r = joints[run.Body("right")].q_start;
  const auto violation = [&](size_t i) { return run.rows[i].q[l] + run.rows[i].q[r]; };
  // From near rest the near-rigid row (tau = dt) removes about half the violation per step;
  // within 30 steps it is gone to round-off and the regularization's offset.
  for (size_t i = 1; i <= 5; ++i) {
    const double ratio = violation(i) / violation(i - 1);
    INFO("step " << i << ": " << ratio);
    CHECK(ratio > 0.3);
    CHECK(ratio < 0.6);
  }
  for (size_t i = 30; i < run.rows.size(); ++i) REQUIRE(std::abs(violation(i)) < 1e-7);
  // Both move as one mass 1 kg pushed by 2 N: the centre of the motion follows F t^2 / 2M,
  // measured by the symmetric part (q_right - q_left) / 2, which the initial offset shifts
  // by 0.005 m.
  const sim::Row& last = run.rows.back();
  const double expected = 2.0 * last.time * last.time / 2.0;
  CHECK(0.5 * (last.q[r] - last.q[l]) + 0.005 == Approx(expected).epsilon(2e-2));
  // The coupler's force is the push on the left finger: m_l a = 0.5 * (-2) N.
  CHECK(last.constraint_impulse[0] / run.scene.settings.time_step == Approx(-1.0).epsilon(1e-3));
}

TEST_CASE("bodies welded or ball-joined to a prescribed turntable follow it: its known motion "
          "enters as the bias", "[constraints]") {
  // A turntable turning about z by 0.5 sin(2 pi t) rad (outside every tree: its motion is
  // known), a box welded to it 0.3 m off its axis and a sphere hanging from a ball on its
  // rim. Without the known velocity in the bias each constraint would lag by about
  // 2 dt |v| (the near-rigid rule removes half the violation per step), up to 3e-3 m at the
  // rim; with it only the change of that velocity within a step is missed, a lag of order
  // dt^2 |a|, a the known acceleration at the point (alpha r + omega^2 r, 15 m/s^2 at most
  // at the rim, alpha 20 rad/s^2 at most).
  const SceneRun run = RunScene(
      "csim: 1\n"
      "settings: {time_step: 1.0e-3, duration: 1.0}\n"
      "bodies:\n"
      "  - {name: table, mass: 1, geometry: [{shape: cylinder, radius: 0.4, length: 0.05}]}\n"
      "  - {name: box, mass: 1, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}],\n"
      "     pose: {position: [0.3, 0, 0.1]}}\n"
      "  - {name: bob, mass: 1, geometry: [{shape: sphere, radius: 0.05}],\n"
      "     pose: {position: [0, 0.5, -0.3]}}\n"
      "joints:\n"
      "  - {name: turn, type: revolute, parent: world, child: table, axis: [0, 0, 1],\n"
      "     prescribed: {type: sine, amplitude: [0.5], frequency: 1}}\n"
      "constraints:\n"
      "  - {type: weld, body_a: table, pose_a: {position: [0.3, 0, 0.1]}, body_b: box}\n"
      "  - {type: ball, body_a: table, point_a: [0, 0.5, 0], body_b: bob, point_b: [0, 0, 0.3]}\n");
  const int table = run.Body("table"), box = run.Body("box"), bob = run.Body("bob");
  double weld_gap = 0.0, weld_angle = 0.0, ball_gap = 0.0;
  for (const sim::Row& row : run.rows) {
    const Eigen::Matrix3d R_table = scenes::BodyRotation(row, table);
    const Eigen::Vector3d p_table = row.body_position.col(table);
    weld_gap = std::max(weld_gap, (row.body_position.col(box) -
                                   (p_table + R_table * Eigen::Vector3d(0.3, 0, 0.1))).norm());
    const Eigen::AngleAxisd relative(R_table.transpose() * scenes::BodyRotation(row, box));
    weld_angle = std::max(weld_angle, std::abs(relative.angle()));
    const Eigen::Vector3d rim = p_table + R_table * Eigen::Vector3d(0, 0.5, 0);
    const Eigen::Vector3d top =
        row.body_position.col(bob) + scenes::BodyRotation(row, bob) * Eigen::Vector3d(0, 0, 0.3);
    ball_gap = std::max(ball_gap, (top - rim).norm());
  }
  INFO("weld gap " << weld_gap << " m, weld angle " << weld_angle << " rad, ball gap "
                   << ball_gap << " m");
  const double dt = 1e-3, w_max = 0.5 * 2 * kPi, alpha_max = 0.5 * 4 * kPi * kPi;
  const double a_max = 0.5 * (alpha_max + w_max * w_max);
  CHECK(weld_gap < 4 * dt * dt * a_max);
  CHECK(weld_angle < 4 * dt * dt * alpha_max);
  CHECK(ball_gap < 4 * dt * dt * a_max);
  CHECK(ball_gap < 0.05 * 2 * dt * w_max * 0.5);  // far below the lag without the bias
}

TEST_CASE("bodies joined by a ball constraint do not collide unless it says collide: true",
          "[constraints]") {
  const std::string scene =
      "csim: 1\n"
      "bodies:\n"
      "  - {name: a, mass: 1, geometry: [{shape: sphere, radius: 0.1}], pose: {position: [0, 0, 1]}}\n"
      "  - {name: b, mass: 1, geometry: [{shape: sphere, radius: 0.1}],\n"
      "     pose: {position: [0.15, 0, 1]}}\n"
      "constraints:\n"
      "  - {type: ball, body_a: a, point_a: [0.075, 0, 0], body_b: b, point_b: [-0.075, 0, 0]COLLIDE}\n";
  for (const bool collide : {false, true}) {
    const io::LoadedScene loaded = io::LoadSceneFromText(
        Fill(scene, "COLLIDE", collide ? ", collide: true" : ""), "test.yaml", {});
    const auto contacts =
        contact::FindContactsAt(loaded.model, 0.0, loaded.model.InitialQ(), 0.0);
    CHECK(contacts.empty() == !collide);
  }
  // A weld filters the same way.
  const std::string weld =
      Fill(Fill(scene, "type: ball", "type: weld"), "point_a: [0.075, 0, 0], body_b: b, point_b: "
                                                   "[-0.075, 0, 0]COLLIDE",
           "pose_a: {position: [0.15, 0, 0]}, body_b: b");
  const io::LoadedScene loaded = io::LoadSceneFromText(weld, "test.yaml", {});
  CHECK(contact::FindContactsAt(loaded.model, 0.0, loaded.model.InitialQ(), 0.0).empty());
}

}  // namespace
}  // namespace csim::contact_physics
