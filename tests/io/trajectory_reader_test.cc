// The scene's `trajectories:` (engine/io/trajectory_reader.h) and prescribed tables: the
// columns of the listed joints, poses, units, and each rule broken, located at the node at
// fault (the marker string in each scene names it), and the warning for a keyframe outside
// its joint's limits. Cartesian keyframes (engine/io/cartesian_keyframes.h, tagged [ik]): a
// frame's poses become joint rows that put it there, on straight paths when asked, and a
// prescribed arm following them in a simulation passes through the poses.

#include "engine/io/trajectory_reader.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "engine/io/scene_loader.h"
#include "engine/math/rotation.h"
#include "engine/multibody/inverse_kinematics.h"
#include "tests/contact_physics/physics_helpers.h"
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

// ---- Cartesian keyframes -------------------------------------------------------------------

// A six-joint arm (a waist about z, shoulder and elbow about y, a wrist about z, y, z) with
// limits, a tool frame 5 cm beyond and 1 cm off the flange, and the test's frames and
// trajectories. `prescribed` makes every arm joint follow the trajectory `move`.
std::string ArmScene(const std::string& rest, bool prescribed = false) {
  const std::string motion = prescribed ? ", prescribed: {type: table, trajectory: move}" : "";
  std::string text =
      "csim: 1\n"
      "settings: {time_step: 1.0e-3, duration: 2.0, integrator: symplectic_euler}\n"
      "bodies:\n";
  for (const char* link : {"base", "upper", "fore", "w1", "w2", "flange"})
    text += std::string("  - {name: ") + link + ", mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n";
  text +=
      "joints:\n"
      "  - {name: waist, type: revolute, parent: world, child: base, pose: {position: [0, 0, 0.3]}, "
      "axis: [0, 0, 1], limits: {lower: -3, upper: 3}" + motion + "}\n"
      "  - {name: shoulder, type: revolute, parent: base, child: upper, pose: {position: [0, 0, 0.1]}, "
      "axis: [0, 1, 0], limits: {lower: -2, upper: 2}" + motion + "}\n"
      "  - {name: elbow, type: revolute, parent: upper, child: fore, pose: {position: [0, 0, 0.4]}, "
      "axis: [0, 1, 0], limits: {lower: 0.05, upper: 2.8}" + motion + "}\n"
      "  - {name: wrist1, type: revolute, parent: fore, child: w1, pose: {position: [0, 0, 0.35]}, "
      "axis: [0, 0, 1], limits: {lower: -3, upper: 3}" + motion + "}\n"
      "  - {name: wrist2, type: revolute, parent: w1, child: w2, pose: {position: [0, 0, 0.05]}, "
      "axis: [0, 1, 0], limits: {lower: -2.5, upper: 2.5}" + motion + "}\n"
      "  - {name: wrist3, type: revolute, parent: w2, child: flange, pose: {position: [0, 0, 0.05]}, "
      "axis: [0, 0, 1], limits: {lower: -3, upper: 3}" + motion + "}\n"
      "frames:\n"
      "  - {name: tool, body: flange, pose: {position: [0.01, 0, 0.05], rpy: [0.3, 0, 0]}}\n";
  return text + rest;
}

const char* const kArmJoints = "[waist, shoulder, elbow, wrist1, wrist2, wrist3]";

/// The tool's pose in `model` at the given arm coordinates (the model's own joints).
math::RigidTransform ToolAt(const multibody::Model& model, const std::vector<double>& arm) {
  Eigen::VectorXd q = model.InitialQ();
  int i = 0;
  for (const char* name : {"waist", "shoulder", "elbow", "wrist1", "wrist2", "wrist3"})
    q[model.joints[model.FindJoint(name)].q_start] = arm[i++];
  const multibody::Frame& tool = model.frames[model.FindFrame("tool")];
  return multibody::CalcFramePose(model, tool.body, tool.X_BF, q);
}

/// The tool's pose at time t of trajectory 0 (the model's joints must own coordinates).
math::RigidTransform ToolOnTrajectory(const multibody::Model& model, double t) {
  std::vector<double> row(6);
  model.trajectories[0].table.EvaluateAll(t, row.data(), nullptr, nullptr);
  return ToolAt(model, row);
}

/// A pose in the scene syntax, to all digits.
std::string PoseText(const math::RigidTransform& X) {
  const Eigen::Vector4d w = math::QuaternionFromRotation(X.R);
  char text[256];
  std::snprintf(text, sizeof text,
                "{position: [%.17g, %.17g, %.17g], quaternion: [%.17g, %.17g, %.17g, %.17g]}",
                X.p.x(), X.p.y(), X.p.z(), w[0], w[1], w[2], w[3]);
  return text;
}

double Angle(const Eigen::Matrix3d& a, const Eigen::Matrix3d& b) {
  return Eigen::AngleAxisd(Eigen::Quaterniond(a.transpose() * b)).angle();
}

// Two poses the arm reaches (made by forward kinematics) and their joint rows.
const std::vector<double> kRowA = {0.4, 0.5, 1.2, 0.3, 0.8, -0.5};
const std::vector<double> kRowB = {-0.3, 0.2, 1.6, -0.4, 1.1, 0.6};

TEST_CASE("Cartesian keyframes are joint rows that put the frame at their poses",
          "[trajectory_reader][ik]") {
  const multibody::Model bare = LoadSceneFromText(ArmScene(""), "test.yaml", {}).model;
  const math::RigidTransform A = ToolAt(bare, kRowA), B = ToolAt(bare, kRowB);
  const std::string text = ArmScene(
      "trajectories:\n"
      "  reach:\n"
      "    joints: " + std::string(kArmJoints) + "\n"
      "    frame: tool\n"
      "    units: deg\n"
      "    poses: {home: [0, 10, 60, 0, 30, 0]}\n"
      "    keyframes:\n"
      "      - {t: 0, q: home}\n"
      "      - {t: 1, pose: " + PoseText(A) + "}\n"
      "      - {t: 2, pose: " + PoseText(B) + ", path: joint}\n"
      "      - {t: 3, q: [0, 20, 90, 0, 0, 0]}\n");
  const LoadedScene scene = LoadSceneFromText(text, "test.yaml", {});
  CHECK(scene.warnings.empty());
  const multibody::Model& model = scene.model;
  REQUIRE(model.trajectories.size() == 1);
  const control::Trajectory& table = model.trajectories[0].table;
  REQUIRE(table.num_keyframes() == 4);
  // The q keyframes as given (in radians); the pose keyframes where the tool is at the pose,
  // within the joints' limits.
  std::vector<double> row(6);
  table.EvaluateAll(0.0, row.data(), nullptr, nullptr);
  CHECK(row[2] == Approx(60 * kPi / 180));
  table.EvaluateAll(3.0, row.data(), nullptr, nullptr);
  CHECK(row[1] == Approx(20 * kPi / 180));
  for (const auto& [t, X] : {std::pair{1.0, A}, std::pair{2.0, B}}) {
    const math::RigidTransform at = ToolOnTrajectory(model, t);
    CHECK((at.p - X.p).norm() < 1e-9);
    CHECK(Angle(at.R, X.R) < 1e-9);
    table.EvaluateAll(t, row.data(), nullptr, nullptr);
    int i = 0;
    for (const char* name : {"waist", "shoulder", "elbow", "wrist1", "wrist2", "wrist3"}) {
      const multibody::Joint& joint = model.joints[model.FindJoint(name)];
      CHECK(row[i] >= joint.lower[0]);
      CHECK(row[i] <= joint.upper[0]);
      ++i;
    }
  }
}

TEST_CASE("a straight Cartesian path keeps the frame on the line between the poses",
          "[trajectory_reader][ik]") {
  const multibody::Model bare = LoadSceneFromText(ArmScene(""), "test.yaml", {}).model;
  const math::RigidTransform A = ToolAt(bare, kRowA);
  // 20 cm along a slanted line while turning 30 degrees about a skew axis.
  math::RigidTransform B = A;
  B.p += Eigen::Vector3d(-0.12, 0.12, 0.08);
  const Eigen::Vector3d axis = Eigen::Vector3d(1, -1, 2).normalized();
  B.R = Eigen::AngleAxisd(kPi / 6, axis).toRotationMatrix() * A.R;
  const std::string text = ArmScene(
      "trajectories:\n"
      "  line:\n"
      "    joints: " + std::string(kArmJoints) + "\n"
      "    frame: tool\n"
      "    keyframes:\n"
      "      - {t: 0, pose: " + PoseText(A) + "}\n"
      "      - {t: 1, pose: " + PoseText(B) + ", path: straight}\n");
  const multibody::Model model = LoadSceneFromText(text, "test.yaml", {}).model;
  const control::Trajectory& table = model.trajectories[0].table;
  // Pieces of at most 1 cm and 3 degrees: 20 of them here (the distance decides).
  const double length = (B.p - A.p).norm();
  REQUIRE(table.num_keyframes() == 1 + static_cast<int>(std::ceil(length / 0.01)));
  const Eigen::Vector3d direction = (B.p - A.p) / length;
  double worst_offset = 0.0, worst_turn = 0.0, worst_jump = 0.0;
  std::vector<double> previous(6), row(6);
  table.EvaluateAll(0.0, previous.data(), nullptr, nullptr);
  for (int i = 1; i <= 400; ++i) {
    const double t = i / 400.0;
    const math::RigidTransform at = ToolOnTrajectory(model, t);
    // Off the line, and off the rotation slerped to the same fraction of the way.
    const double s = (at.p - A.p).dot(direction) / length;
    CHECK(s >= -1e-9);
    CHECK(s <= 1 + 1e-9);
    worst_offset = std::max(worst_offset, (at.p - A.p - s * length * direction).norm());
    const Eigen::Matrix3d slerp = Eigen::AngleAxisd(s * kPi / 6, axis).toRotationMatrix() * A.R;
    worst_turn = std::max(worst_turn, Angle(at.R, slerp));
    // Consecutive samples 2.5 ms apart: the joints move continuously (no branch switch).
    table.EvaluateAll(t, row.data(), nullptr, nullptr);
    for (int c = 0; c < 6; ++c) worst_jump = std::max(worst_jump, std::abs(row[c] - previous[c]));
    previous = row;
  }
  INFO("off the line " << worst_offset << " m, off the slerp " << worst_turn
                       << " rad, largest joint change " << worst_jump << " rad");
  CHECK(worst_offset < 1e-4);
  CHECK(worst_turn < 1e-3);
  CHECK(worst_jump < 0.02);
  // The end is the pose itself.
  const math::RigidTransform end = ToolOnTrajectory(model, 1.0);
  CHECK((end.p - B.p).norm() < 1e-9);
  CHECK(Angle(end.R, B.R) < 1e-9);
}

TEST_CASE("Cartesian keyframes that cannot be solved are rejected where they are written",
          "[trajectory_reader][ik]") {
  const std::string pose = "{position: [0.5, 0, 0.6]}";
  const std::string head = "trajectories:\n  a:\n    joints: " + std::string(kArmJoints) +
                           "\n";
  const std::string frame = head + "    frame: tool\n";
  const struct {
    std::string rest, marker, message;
  } kRejected[] = {
      {frame + "    keyframes: [{t: 0, q: [0, 0, 1, 0, 0, 0]}, "
               "{t: 1, pose: {position: [5, 0, 0.6]}}]\n",
       "{position: [5", "trajectory 'a' keyframe 1: frame 'tool' cannot reach this pose with "
                        "the trajectory's joints: the closest pose found is 4."},
      {frame + "    keyframes: [{t: 0, q: [0, 0, 1, 0, 0, 0]}, "
               "{t: 1, pose: {position: [5, 0, 0.6]}, path: straight}]\n",
       "{position: [5", "cannot reach the point"},
      {head + "    frame: nowhere\n    keyframes: [{t: 0, pose: " + pose + "}, {t: 1, pose: " +
           pose + "}]\n",
       "nowhere", "unknown frame or body 'nowhere'"},
      {head + "    frame: world\n    keyframes: [{t: 0, pose: " + pose + "}, {t: 1, pose: " +
           pose + "}]\n",
       "world\n", "the world frame cannot be moved"},
      {"trajectories:\n  a:\n    joints: [waist, elbow]\n    frame: base\n"
       "    keyframes: [{t: 0, pose: " + pose + "}, {t: 1, pose: " + pose + "}]\n",
       "elbow]", "joint 'elbow' does not move frame 'base'"},
      {head + "    keyframes: [{t: 0, pose: " + pose + "}, {t: 1, q: [0, 0, 1, 0, 0, 0]}]\n",
       pose, "a pose keyframe needs the trajectory's `frame`"},
      {frame + "    keyframes: [{t: 0, pose: " + pose + ", q: [0, 0, 1, 0, 0, 0]}, "
               "{t: 1, pose: " + pose + "}]\n",
       "[0, 0, 1, 0, 0, 0]}, {t: 1", "give either q or pose, not both"},
      {frame + "    keyframes: [{t: 0, pose: " + pose + ", v: [0, 0, 0, 0, 0, 0]}, "
               "{t: 1, pose: " + pose + "}]\n",
       "[0, 0, 0, 0, 0, 0]}", "a pose keyframe takes no v"},
      {frame + "    keyframes: [{t: 0, pose: " + pose + ", path: straight}, "
               "{t: 1, pose: " + pose + "}]\n",
       "straight", "the first keyframe has no segment to make straight"},
      {frame + "    keyframes: [{t: 0, pose: " + pose + "}, "
               "{t: 1, pose: " + pose + ", path: curved}]\n",
       "curved", "unknown path 'curved' (expected joint or straight)"},
      {frame + "    keyframes: [{t: 0, pose: " + pose + "}, "
               "{t: 1, q: [0, 0, 1, 0, 0, 0], path: straight}]\n",
       "straight", "path applies to pose keyframes only"},
      {frame + "    keyframes: [{t: 0, pose: " + pose + "}, {t: 0, pose: " + pose + "}]\n",
       "0, pose: {position: [0.5, 0, 0.6]}}]", "keyframe 1: t = 0 is not after keyframe 0's"},
      {frame + "    keyframes: [{t: 0, pose: {position: [0.5, 0, 0.6], rpy: [0, 0]}}, "
               "{t: 1, pose: " + pose + "}]\n",
       "[0, 0]}", "3"},
  };
  for (const auto& r : kRejected) {
    INFO(r.rest);
    CheckRejectedAt(ArmScene(r.rest), r.marker, r.message);
  }
}

TEST_CASE("frames have unique names on known bodies and are rejected where written",
          "[trajectory_reader][ik]") {
  const LoadedScene scene = LoadSceneFromText(
      ArmScene("  - {name: mount, body: world, pose: {position: [1, 2, 3]}}\n"), "test.yaml",
      {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.frames.size() == 2);
  const multibody::Frame& tool = model.frames[model.FindFrame("tool")];
  CHECK(tool.body == model.FindBody("flange"));
  CHECK(tool.X_BF.p == Eigen::Vector3d(0.01, 0, 0.05));
  CHECK(Angle(tool.X_BF.R, math::RotationFromRpy(Eigen::Vector3d(0.3, 0, 0))) < 1e-15);
  const multibody::Frame& mount = model.frames[model.FindFrame("mount")];
  CHECK(mount.body == -1);
  CHECK(mount.X_BF.p == Eigen::Vector3d(1, 2, 3));
  CHECK(model.FindFrame("flange") == -1);

  const struct {
    std::string frame, marker, message;
  } kRejected[] = {
      {"  - {name: tool, body: base}\n", "tool, body: base", "duplicate frame name 'tool'"},
      {"  - {name: elbow_frame, body: forearm}\n", "forearm", "unknown body 'forearm'"},
      {"  - {name: fore, body: upper}\n", "fore, body: upper",
       "frame name 'fore' is already the name of a body"},
      {"  - {name: world, body: upper}\n", "world, body: upper", "'world' is reserved"},
      {"  - {name: a.b, body: upper}\n", "a.b", "frame name 'a.b' must not contain '.'"},
      {"  - {name: a, body: upper, offset: [0, 0, 1]}\n", "offset", "unknown key 'offset'"},
      {"  - {name: a, body: upper, pose: {position: [0, 0]}}\n", "[0, 0]", "3"},
  };
  for (const auto& r : kRejected) {
    INFO(r.frame);
    CheckRejectedAt(ArmScene(r.frame), r.marker, r.message);
  }
}

TEST_CASE("a prescribed arm following Cartesian keyframes puts its frame at their poses",
          "[trajectory_reader][ik]") {
  const multibody::Model bare = LoadSceneFromText(ArmScene(""), "test.yaml", {}).model;
  const math::RigidTransform A = ToolAt(bare, kRowA), B = ToolAt(bare, kRowB);
  math::RigidTransform C = B;
  C.p += Eigen::Vector3d(0, 0.1, -0.05);
  const std::string text = ArmScene(
      "trajectories:\n"
      "  move:\n"
      "    joints: " + std::string(kArmJoints) + "\n"
      "    frame: tool\n"
      "    keyframes:\n"
      "      - {t: 0, pose: " + PoseText(A) + "}\n"
      "      - {t: 1, pose: " + PoseText(B) + "}\n"
      "      - {t: 1.5, pose: " + PoseText(C) + ", path: straight}\n",
      true);
  const contact_physics::SceneRun run = contact_physics::RunScene(text);
  const multibody::Model& model = run.scene.model;
  const multibody::Frame& tool = model.frames[model.FindFrame("tool")];
  int visited = 0;
  for (const auto& [t, X] : {std::pair{0.0, A}, std::pair{1.0, B}, std::pair{1.5, C}}) {
    for (const sim::Row& row : run.rows) {
      if (std::abs(row.time - t) > 1e-9) continue;
      ++visited;
      math::RigidTransform X_WB;
      X_WB.R = math::RotationFromQuaternion(row.body_quaternion.col(tool.body));
      X_WB.p = row.body_position.col(tool.body);
      const math::RigidTransform at = X_WB * tool.X_BF;
      INFO("t = " << t);
      CHECK((at.p - X.p).norm() < 1e-6);
      CHECK(Angle(at.R, X.R) < 1e-6);
    }
  }
  CHECK(visited == 3);
  // On the straight segment the recorded frame stays on the line from B to C. The arm
  // passes B without stopping, with the joint velocities that pchip blends from the segment
  // before, so the first piece (1 cm) bends off the line by a little more.
  const double length = (C.p - B.p).norm();
  const double piece = 0.5 / std::ceil(length / 0.01);
  const Eigen::Vector3d direction = (C.p - B.p) / length;
  double first = 0.0, rest = 0.0;
  for (const sim::Row& row : run.rows) {
    if (row.time < 1.0 || row.time > 1.5) continue;
    math::RigidTransform X_WB;
    X_WB.R = math::RotationFromQuaternion(row.body_quaternion.col(tool.body));
    X_WB.p = row.body_position.col(tool.body);
    const Eigen::Vector3d d = (X_WB * tool.X_BF).p - B.p;
    const double off = (d - d.dot(direction) * direction).norm();
    (row.time < 1.0 + piece ? first : rest) = std::max(row.time < 1.0 + piece ? first : rest, off);
  }
  INFO("off the line: " << first << " m in the first piece, " << rest << " m after it");
  CHECK(first < 1e-3);
  CHECK(rest < 1e-4);
}

}  // namespace
}  // namespace csim::io
