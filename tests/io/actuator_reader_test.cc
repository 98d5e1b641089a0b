// The scene's `actuators:` (engine/io/actuator_reader.h): joints, coordinates, gains,
// targets and feed-forward resolved into the model, and each rule broken located at the
// node at fault (the marker string in each scene names it).

#include "engine/io/actuator_reader.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using test::CheckRejectedAt;

// Every joint type an actuator may name: a revolute arm (a 2 kg point-like bob 0.5 m out,
// armature 0.1), a planar puck, a ball, a fixed, a prescribed joint, and a free body.
std::string Scene(const std::string& actuators) {
  return "csim: 1\n"
         "signals: {push: {type: constant, value: 2}}\n"
         "bodies:\n"
         "  - {name: arm, mass: 2, inertia: [1.0e-6, 1.0e-6, 1.0e-6, 0, 0, 0], com: [0.5, 0, 0]}\n"
         "  - {name: puck, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: top, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: plate, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: cart, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: rock, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "joints:\n"
         "  - {name: shoulder, type: revolute, parent: world, child: arm, axis: [0, 1, 0],\n"
         "     armature: 0.1, initial: {q: [0.25]}}\n"
         "  - {name: plane, type: planar, parent: world, child: puck, initial: {q: [1, 2, 0.5]}}\n"
         "  - {name: socket, type: ball, parent: world, child: top}\n"
         "  - {name: weld, type: fixed, parent: world, child: plate}\n"
         "  - {name: rail, type: prismatic, parent: world, child: cart, axis: [1, 0, 0],\n"
         "     prescribed: {type: sine, amplitude: 0.2, frequency: 1}}\n"
         "trajectories:\n"
         "  moves: {joints: [shoulder], keyframes: [{t: 0, q: 0}, {t: 1, q: 1}]}\n"
         "  glides: {joints: [rail, plane], keyframes: [{t: 0, q: [0, 0, 0, 0]}, "
         "{t: 1, q: [1, 1, 2, 3]}]}\n"
         "actuators:\n" + actuators;
}

TEST_CASE("actuators are read with their defaults, gains, targets and feed-forward",
          "[actuator_reader][actuators]") {
  const LoadedScene scene = LoadSceneFromText(
      Scene("  - {name: elbow, joint: shoulder, kp: 100, damping_ratio: 0.5, target: moves,\n"
            "     effort_limit: 20, feedforward: gravity}\n"
            "  - {name: pusher, joint: plane, coordinate: 2, kd: 3, target: glides,\n"
            "     feedforward: 1.5}\n"
            "  - {name: thruster, joint: plane, coordinate: 0, feedforward: push}\n"
            "  - {name: holder, joint: plane, coordinate: 1, kp: 7}\n"),
      "test.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.actuators.size() == 4);
  const multibody::Actuator& elbow = model.actuators[0];
  CHECK(elbow.joint == model.FindJoint("shoulder"));
  CHECK(elbow.dof == model.joints[elbow.joint].v_start);
  CHECK(elbow.pd);
  CHECK(elbow.kp == 100);
  // A_jj = m r^2 + I_yy + armature = 2 * 0.25 + 1e-6 + 0.1 at any q.
  CHECK(elbow.kd == Approx(2 * 0.5 * std::sqrt(100 * (0.5 + 1e-6 + 0.1))).epsilon(1e-12));
  CHECK(elbow.effort_limit == 20);
  CHECK(elbow.target == model.FindTrajectory("moves"));
  CHECK(elbow.target_column == 0);
  CHECK(elbow.feedforward_kind == multibody::FeedforwardKind::kGravity);
  // The torque that holds the bob at q0 = 0.25 rad about y: m g r cos(q0) in magnitude.
  CHECK(std::abs(elbow.feedforward) == Approx(2 * 9.81 * 0.5 * std::cos(0.25)).epsilon(1e-12));
  const multibody::Actuator& pusher = model.actuators[1];
  CHECK(pusher.coordinate == 2);
  CHECK(pusher.dof == model.joints[pusher.joint].v_start + 2);
  CHECK(pusher.kp == 0);
  CHECK(pusher.kd == 3);
  CHECK(pusher.target_column == 3);  // after the rail's one column
  CHECK(pusher.effort_limit == std::numeric_limits<double>::infinity());
  CHECK(pusher.feedforward_kind == multibody::FeedforwardKind::kConstant);
  CHECK(pusher.feedforward == 1.5);
  const multibody::Actuator& thruster = model.actuators[2];
  CHECK_FALSE(thruster.pd);
  CHECK(thruster.feedforward_kind == multibody::FeedforwardKind::kSignal);
  CHECK(thruster.signal == model.signals.Find("push"));
  const multibody::Actuator& holder = model.actuators[3];
  CHECK(holder.pd);
  CHECK(holder.target == -1);
  CHECK(holder.q_hold == 2.0);  // the planar joint's initial y
}

TEST_CASE("actuators that break a rule are rejected at the node at fault",
          "[actuator_reader][actuators]") {
  // Each entry: the actuators, the text that marks the node at fault, and the message.
  const struct {
    const char* actuators;
    const char* marker;
    const char* message;
  } kRejected[] = {
      {"  - {name: act, joint: knee, kp: 1}\n",
       "knee", "unknown joint 'knee'"},
      {"  - {name: act, joint: weld, kp: 1}\n",
       "weld, kp", "joint 'weld' is fixed: an actuator drives a revolute, prismatic or planar"},
      {"  - {name: act, joint: socket, kp: 1}\n",
       "socket, kp", "joint 'socket' is ball"},
      {"  - {name: act, joint: rock, kp: 1}\n",
       "rock, kp", "joint 'rock' is free"},
      {"  - {name: act, joint: rail, kp: 1}\n",
       "rail, kp", "joint 'rail' is prescribed"},
      {"  - {name: act, joint: plane, kp: 1}\n",
       "{name: act", "missing required key 'coordinate'"},
      {"  - {name: act, joint: plane, coordinate: 3, kp: 1}\n",
       "3, kp", "coordinate 3 is out of range"},
      {"  - {name: act, joint: plane, coordinate: -1, kp: 1}\n",
       "-1, kp", "coordinate -1 is out of range"},
      {"  - {name: act, joint: shoulder, coordinate: 0, kp: 1}\n",
       "0, kp", "'coordinate' is for planar joints only"},
      {"  - {name: act, joint: plane, coordinate: 1, kp: 1}\n"
       "  - {name: bct, joint: plane, coordinate: 1, kd: 1}\n",
       "plane, coordinate: 1, kd", "actuators 'act' and 'bct' drive the same coordinate"},
      {"  - {name: act, joint: shoulder, kp: 1}\n"
       "  - {name: act, joint: plane, coordinate: 0, kp: 1}\n",
       "act, joint: plane", "duplicate actuator name 'act'"},
      {"  - {name: act, joint: shoulder, kp: -1}\n",
       "-1}", "must not be negative"},
      {"  - {name: act, joint: shoulder, kd: .inf}\n",
       ".inf", "expected a finite number"},
      {"  - {name: act, joint: shoulder, kp: .nan}\n",
       ".nan", "expected a finite number"},
      {"  - {name: act, joint: shoulder, kp: 0, kd: 0, target: moves}\n",
       "0, kd", "kp and kd are both zero: the target would have no effect"},
      {"  - {name: act, joint: shoulder, target: moves}\n",
       "moves}", "a target needs a gain"},
      {"  - {name: act, joint: shoulder, kp: 1, effort_limit: 0.0}\n",
       "0.0}", "must be positive"},
      {"  - {name: act, joint: shoulder, kp: 1, effort_limit: -2}\n",
       "-2}", "must be positive"},
      {"  - {name: act, joint: shoulder, kp: 1, kd: 1, damping_ratio: 0.75}\n",
       "0.75}", "give kd or damping_ratio, not both"},
      {"  - {name: act, joint: shoulder, kd: 1, damping_ratio: 0.75}\n",
       "0.75}", "give kd or damping_ratio, not both"},
      {"  - {name: act, joint: shoulder, damping_ratio: 0.75}\n",
       "0.75}", "damping_ratio needs kp"},
      {"  - {name: act, joint: shoulder, kp: 1, target: sways}\n",
       "sways", "unknown trajectory 'sways'"},
      {"  - {name: act, joint: plane, coordinate: 0, kp: 1, target: moves}\n",
       "moves}", "trajectory 'moves' has no column for joint 'plane'"},
      {"  - {name: act, joint: shoulder, kp: 1, feedforward: pull}\n",
       "pull", "unknown signal 'pull'"},
      {"  - {name: act, joint: shoulder, kp: 1, feedforward: .inf}\n",
       ".inf", "expected a finite number"},
      {"  - {name: act, joint: shoulder, kp: 1, gain: 2}\n",
       "gain", "unknown key 'gain'"},
      {"  - {joint: shoulder, kp: 1}\n",
       "{joint: shoulder", "missing required key 'name'"},
  };
  for (const auto& r : kRejected) {
    INFO(r.actuators);
    CheckRejectedAt(Scene(r.actuators), r.marker, r.message);
  }
}

}  // namespace
}  // namespace csim::io
