// The scene's `trajectories:` (engine/io/trajectory_reader.h) and prescribed tables: the
// columns of the listed joints, poses, units, and each rule broken, located at the node at
// fault (the marker string in each scene names it), and the warning for a keyframe outside
// its joint's limits.

#include "engine/io/trajectory_reader.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using test::CheckRejectedAt;
using test::LocationOf;

constexpr double kPi = 3.14159265358979323846;

// Four joints: a prismatic one with limits, a revolute, a planar and a ball joint; the
// test's `trajectories:` entries follow.
std::string Scene(const std::string& trajectories, const std::string& rail_motion = "") {
  return "csim: 1\n"
         "bodies:\n"
         "  - {name: cart, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}\n"
         "  - {name: arm, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}\n"
         "  - {name: puck, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}\n"
         "  - {name: ball, mass: 1, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}\n"
         "joints:\n"
         "  - {name: slide, type: prismatic, parent: world, child: cart, "
         "limits: {lower: -1, upper: 1}" + rail_motion + "}\n"
         "  - {name: hinge, type: revolute, parent: world, child: arm}\n"
         "  - {name: plane, type: planar, parent: world, child: puck}\n"
         "  - {name: socket, type: ball, parent: world, child: ball}\n"
         "trajectories:\n" + trajectories;
}

TEST_CASE("a trajectory's columns are its joints' coordinates, with poses and degrees",
          "[trajectory_reader]") {
  const LoadedScene scene = LoadSceneFromText(Scene(R"(  wave:
    joints: [hinge, plane, slide]
    units: deg
    interpolation: linear
    after: repeat
    poses: {home: [0, 0, 0, 0, 0], out: [90, 0.5, 0.25, 180, 0.5]}
    keyframes:
      - {t: 0, q: home}
      - {t: 2, q: out}
      - {t: 4, q: [0, 0, 0, 0, 0]}
)"), "test.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.trajectories.size() == 1);
  const multibody::JointTrajectory& wave = model.trajectories[0];
  CHECK(wave.name == "wave");
  CHECK(model.FindTrajectory("wave") == 0);
  CHECK(wave.joints == std::vector<int>{model.FindJoint("hinge"), model.FindJoint("plane"),
                                        model.FindJoint("slide")});
  CHECK(wave.first_column == std::vector<int>{0, 1, 4});
  REQUIRE(wave.table.num_columns() == 5);
  CHECK(wave.table.interpolation() == control::Interpolation::kLinear);
  CHECK(wave.table.after() == control::AfterLastKeyframe::kRepeat);
  // At the pose `out`: the angles (the hinge, the planar angle) in radians, the lengths as
  // given; halfway to it, half of each.
  double q[5];
  wave.table.EvaluateAll(2.0, q, nullptr, nullptr);
  CHECK(q[0] == Approx(kPi / 2));
  CHECK(q[1] == 0.5);
  CHECK(q[2] == 0.25);
  CHECK(q[3] == Approx(kPi));
  CHECK(q[4] == 0.5);
  wave.table.EvaluateAll(1.0, q, nullptr, nullptr);
  CHECK(q[0] == Approx(kPi / 4));
  CHECK(q[3] == Approx(kPi / 2));
  // Repeated with the period 4 s.
  wave.table.EvaluateAll(6.0, q, nullptr, nullptr);
  CHECK(q[0] == Approx(kPi / 2));
  CHECK(scene.warnings.empty());
}

TEST_CASE("a prescribed joint follows its table and a one-column q may be a number",
          "[trajectory_reader]") {
  const LoadedScene scene = LoadSceneFromText(
      Scene("  move: {joints: [slide], keyframes: [{t: 0, q: 0}, {t: 1, q: 0.5}]}\n",
            ", prescribed: {type: table, trajectory: move}"),
      "test.yaml", {});
  const multibody::Joint& slide = scene.model.joints[scene.model.FindJoint("slide")];
  CHECK(slide.prescribed);
  CHECK(slide.motion.kind == multibody::PrescribedKind::kTable);
  CHECK(slide.motion.trajectory == 0);
  CHECK(slide.motion.first_column == 0);
  CHECK(slide.q_start == -1);
}

TEST_CASE("trajectories that break a rule are rejected at the node at fault",
          "[trajectory_reader]") {
  const std::string two = "    keyframes: [{t: 0, q: [0, 0]}, {t: 1, q: [1, 1]}]\n";
  // Each entry: the trajectories, the text that marks the node at fault, and the message.
  const struct {
    std::string trajectories, marker, message;
  } kRejected[] = {
      {"  a:\n    joints: [slide, elbow]\n" + two,
       "elbow", "unknown joint 'elbow'"},
      {"  a:\n    joints: [slide, socket]\n" + two,
       "socket]", "joint 'socket' is a ball joint"},
      {"  a:\n    joints: [slide, slide]\n" + two,
       "slide]", "joint 'slide' is listed twice"},
      {"  a:\n    joints: []\n" + two,
       "[]", "at least one joint"},
      {"  a:\n    joints: [slide]\n    keyframes: [{t: 0, q: 0}, {t: 0, q: 1}]\n",
       "0, q: 1", "keyframe 1: t = 0 is not after keyframe 0's t = 0"},
      {"  a:\n    joints: [slide, hinge]\n"
       "    keyframes: [{t: 0, q: [0, 0]}, {t: 1, q: [1, 1, 1]}]\n",
       "[1, 1, 1]", "trajectory 'a': keyframe 1: q has 3 values, expected 2"},
      {"  a:\n    joints: [slide]\n    interpolation: spline\n"
       "    keyframes: [{t: 0, q: 0}, {t: 1, q: 1}]\n",
       "[{t: 0", "spline interpolation needs at least 3 keyframes"},
      {"  a:\n    joints: [slide]\n    interpolation: hermite\n"
       "    keyframes: [{t: 0, q: 0, v: 0}, {t: 1, q: 1}]\n",
       "{t: 1", "keyframe 1: hermite interpolation needs v"},
      {"  a:\n    joints: [slide]\n    interpolation: linear\n"
       "    keyframes: [{t: 0, q: 0, v: 0.5}, {t: 1, q: 1}]\n",
       "0.5}", "linear interpolation does not use v"},
      {"  a:\n    joints: [slide]\n    poses: {home: [0]}\n"
       "    keyframes: [{t: 0, q: home}, {t: 1, q: away}]\n",
       "away", "unknown pose 'away' (its poses: home)"},
      {"  a:\n    joints: [slide]\n    poses: {home: [0, 1]}\n"
       "    keyframes: [{t: 0, q: home}, {t: 1, q: 1}]\n",
       "[0, 1]", "pose 'home' has 2 values, expected 1"},
      {"  a:\n    joints: [slide]\n    interpolation: cubic\n" + two,
       "cubic", "unknown interpolation 'cubic' (expected zoh, linear, pchip, spline or hermite)"},
      {"  a:\n    joints: [slide]\n    end_velocity: free\n" + two,
       "free", "unknown end velocity 'free' (expected zero or natural)"},
      {"  a:\n    joints: [slide]\n    units: grad\n" + two,
       "grad", "unknown units 'grad' (expected rad or deg)"},
      {"  a:\n    joints: [slide]\n    speed: 1\n" + two,
       "speed", "unknown key 'speed'"},
      {"  a.b:\n    joints: [slide]\n" + two,
       "a.b", "trajectory name 'a.b' must not contain '.'"},
  };
  for (const auto& r : kRejected) {
    INFO(r.trajectories);
    CheckRejectedAt(Scene(r.trajectories), r.marker, r.message);
  }
}

TEST_CASE("a prescribed table must name a trajectory that has the joint as a column",
          "[trajectory_reader]") {
  const std::string two = "  move: {joints: [hinge], keyframes: [{t: 0, q: 0}, {t: 1, q: 1}]}\n";
  CheckRejectedAt(Scene(two, ", prescribed: {type: table, trajectory: moves}"), "moves}",
                  "unknown trajectory 'moves'");
  CheckRejectedAt(Scene(two, ", prescribed: {type: table, trajectory: move}"), "move}",
                  "trajectory 'move' has no column for joint 'slide'");
  CheckRejectedAt(Scene(two, ", prescribed: {type: table, trajectory: move, amplitude: 1}"),
                  "amplitude", "unknown key 'amplitude'");
  CheckRejectedAt(Scene(two, ", prescribed: {type: cosine}"), "cosine",
                  "unknown prescribed motion 'cosine' (expected sine or table)");
}

TEST_CASE("a keyframe outside its joint's limits is a located warning", "[trajectory_reader]") {
  const std::string text = Scene(R"(  reach:
    joints: [hinge, slide]
    keyframes:
      - {t: 0, q: [0, 0]}
      - {t: 1, q: [2, 1.5]}
      - {t: 2, q: [0, -1]}
)");
  const LoadedScene scene = LoadSceneFromText(text, "test.yaml", {});
  REQUIRE(scene.warnings.size() == 1);
  INFO(scene.warnings[0]);
  CHECK(scene.warnings[0].rfind(LocationOf(text, "1.5]") + ": ", 0) == 0);
  CHECK(scene.warnings[0].find("trajectory 'reach' keyframe 1: q = 1.5 m for joint 'slide' is "
                               "outside its limits [-1, 1] m") != std::string::npos);
}

}  // namespace
}  // namespace csim::io
