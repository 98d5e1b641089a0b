// Inverse kinematics of a frame's pose (engine/multibody/inverse_kinematics.h) on a 7-dof
// arm with limits: poses made by forward kinematics are found again, the frame's offset on
// its body is honoured, a redundant arm takes the smallest step from its seed, limits are
// never left, and an unreachable pose returns its residual.

#include "engine/multibody/inverse_kinematics.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/io/scene_loader.h"
#include "engine/multibody/jacobians.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/workspace.h"
#include "tests/support/build_variant.h"

namespace csim::multibody {
namespace {

// Seven revolute joints alternating about z and y (a shoulder, an elbow limited to bend one
// way, a wrist), links of 0.1 to 0.3 m; the tool frame sits 0.1 m beyond the last joint and
// 2 cm off its axis, turned a quarter turn about y.
const char* const kArm = R"(csim: 1
bodies:
  - {name: l1, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: l2, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: l3, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: l4, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: l5, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: l6, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: l7, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
joints:
  - {name: j1, type: revolute, parent: world, child: l1, pose: {position: [0, 0, 0.3]},
     axis: [0, 0, 1], limits: {lower: -2.9, upper: 2.9}}
  - {name: j2, type: revolute, parent: l1, child: l2, pose: {position: [0, 0, 0.1]},
     axis: [0, 1, 0], limits: {lower: -1.8, upper: 1.8}}
  - {name: j3, type: revolute, parent: l2, child: l3, pose: {position: [0, 0, 0.3]},
     axis: [0, 0, 1], limits: {lower: -2.9, upper: 2.9}}
  - {name: j4, type: revolute, parent: l3, child: l4, pose: {position: [0, 0, 0.1]},
     axis: [0, 1, 0], limits: {lower: -3.0, upper: -0.1}}
  - {name: j5, type: revolute, parent: l4, child: l5, pose: {position: [0, 0, 0.3]},
     axis: [0, 0, 1], limits: {lower: -2.9, upper: 2.9}}
  - {name: j6, type: revolute, parent: l5, child: l6, pose: {position: [0, 0, 0.1]},
     axis: [0, 1, 0], limits: {lower: -0.1, upper: 3.7}}
  - {name: j7, type: revolute, parent: l6, child: l7, pose: {position: [0, 0, 0.1]},
     axis: [0, 0, 1], limits: {lower: -2.9, upper: 2.9}}
frames:
  - {name: tool, body: l7, pose: {position: [0.02, 0, 0.1], rpy: [0, 1.5707963267948966, 0]}}
)";

struct Arm {
  io::LoadedScene scene = io::LoadSceneFromText(kArm, "arm.yaml", {});
  const Model& model = scene.model;
  const Frame& tool = model.frames.at(0);
  std::vector<int> joints;
  Arm() {
    for (const char* name : {"j1", "j2", "j3", "j4", "j5", "j6", "j7"})
      joints.push_back(model.FindJoint(name));
  }
  math::RigidTransform ToolPose(const Eigen::VectorXd& q) const {
    return CalcFramePose(model, tool.body, tool.X_BF, q);
  }
  /// Uniform in the limits.
  Eigen::VectorXd RandomQ(std::mt19937& rng) const {
    Eigen::VectorXd q(model.nq);
    for (const int j : joints) {
      const Joint& joint = model.joints[j];
      std::uniform_real_distribution<double> u(joint.lower[0], joint.upper[0]);
      q[joint.q_start] = u(rng);
    }
    return q;
  }
  Eigen::VectorXd Clamp(Eigen::VectorXd q) const {
    for (const int j : joints) {
      const Joint& joint = model.joints[j];
      q[joint.q_start] = std::clamp(q[joint.q_start], joint.lower[0], joint.upper[0]);
    }
    return q;
  }
  bool WithinLimits(const Eigen::VectorXd& q) const {
    for (const int j : joints) {
      const Joint& joint = model.joints[j];
      if (q[joint.q_start] < joint.lower[0] || q[joint.q_start] > joint.upper[0]) return false;
    }
    return true;
  }
};

double PositionError(const math::RigidTransform& a, const math::RigidTransform& b) {
  return (a.p - b.p).norm();
}

double AngleError(const math::RigidTransform& a, const math::RigidTransform& b) {
  return Eigen::AngleAxisd(Eigen::Quaterniond(a.R.transpose() * b.R)).angle();
}

TEST_CASE("inverse kinematics finds again the poses that forward kinematics made", "[ik]") {
  const Arm arm;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> nudge(-0.4, 0.4);
  int from_home = 0;
  // 200 poses, 40 in the sanitized program (which checks csim's memory use, not coverage).
  const int trials = csim::testing::UnderAddressSanitizer() ? 40 : 200;
  for (int trial = 0; trial < trials; ++trial) {
    const Eigen::VectorXd q_true = arm.RandomQ(rng);
    const math::RigidTransform X = arm.ToolPose(q_true);
    // Seeded near the pose's own q, as a trajectory's previous keyframe seeds the next.
    Eigen::VectorXd seed = q_true;
    for (const int j : arm.joints) seed[arm.model.joints[j].q_start] += nudge(rng);
    seed = arm.Clamp(seed);
    const InverseKinematicsResult ik =
        SolveInverseKinematics(arm.model, arm.tool.body, arm.tool.X_BF, X, arm.joints, seed);
    INFO("trial " << trial << ": " << ik.iterations << " iterations");
    CHECK(ik.converged);
    const math::RigidTransform found = arm.ToolPose(ik.q);
    CHECK(PositionError(found, X) < 1e-9);
    CHECK(AngleError(found, X) < 1e-9);
    CHECK(ik.position_error == Approx(PositionError(found, X)).margin(1e-12));
    CHECK(arm.WithinLimits(ik.q));
    // From the arm's initial q (all zero, the elbow clamped to its limit), far from most
    // poses, the restarts find them too.
    const InverseKinematicsResult home = SolveInverseKinematics(
        arm.model, arm.tool.body, arm.tool.X_BF, X, arm.joints, arm.model.InitialQ());
    if (home.converged) {
      ++from_home;
      CHECK(PositionError(arm.ToolPose(home.q), X) < 1e-9);
      CHECK(arm.WithinLimits(home.q));
    }
  }
  INFO("found from home: " << from_home << " of " << trials);
  CHECK(from_home == trials);
}

TEST_CASE("inverse kinematics places the frame and not its body's origin", "[ik]") {
  const Arm arm;
  std::mt19937 rng(11);
  const math::RigidTransform X = arm.ToolPose(arm.RandomQ(rng));
  const InverseKinematicsResult ik = SolveInverseKinematics(
      arm.model, arm.tool.body, arm.tool.X_BF, X, arm.joints, arm.RandomQ(rng));
  REQUIRE(ik.converged);
  // The body then sits at X X_BF^-1.
  const math::RigidTransform body = CalcFramePose(arm.model, arm.tool.body,
                                                  math::RigidTransform::Identity(), ik.q);
  const math::RigidTransform expected = X * arm.tool.X_BF.Inverse();
  CHECK(PositionError(body, expected) < 1e-9);
  CHECK(AngleError(body, expected) < 1e-9);
}

TEST_CASE("a redundant arm moves from its seed by the smallest step", "[ik]") {
  const Arm arm;
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    // A seed away from the limits, and a target moved from its pose by a small twist.
    Eigen::VectorXd seed(arm.model.nq);
    for (const int j : arm.joints) {
      const Joint& joint = arm.model.joints[j];
      const double mid = 0.5 * (joint.lower[0] + joint.upper[0]);
      const double half = 0.25 * (joint.upper[0] - joint.lower[0]);
      seed[joint.q_start] = std::uniform_real_distribution<double>(mid - half, mid + half)(rng);
    }
    const math::RigidTransform X0 = arm.ToolPose(seed);
    const Eigen::Vector3d turn(1e-4, -2e-4, 0.5e-4), shift(2e-4, 1e-4, -1e-4);
    math::RigidTransform X = X0;
    X.R = Eigen::AngleAxisd(turn.norm(), turn.normalized()).toRotationMatrix() * X0.R;
    X.p += shift;
    const InverseKinematicsResult ik =
        SolveInverseKinematics(arm.model, arm.tool.body, arm.tool.X_BF, X, arm.joints, seed);
    REQUIRE(ik.converged);
    // Of all steps dq with J dq = [turn; shift] (to first order), the pull toward the seed
    // keeps the one with no null-space part: the pseudo-inverse's, dq = J^+ [turn; shift].
    Workspace ws = MakeWorkspace(arm.model);
    CalcKinematics(arm.model, 0.0, seed, Eigen::VectorXd::Zero(arm.model.nv), ws);
    Eigen::Matrix<double, 6, Eigen::Dynamic> J(6, arm.model.nv);
    CalcFrameJacobian(arm.model, ws, arm.tool.body, X0.p, J);
    Eigen::Matrix<double, 6, 1> twist;
    twist << turn, shift;
    const Eigen::VectorXd minimum = J.completeOrthogonalDecomposition().solve(twist);
    const Eigen::VectorXd step = ik.q - seed;
    INFO("trial " << trial << ": |dq| " << step.norm() << ", off by " << (step - minimum).norm());
    CHECK((step - minimum).norm() < 1e-2 * minimum.norm());
  }
  // A seed that already places the frame is kept as it is.
  const Eigen::VectorXd q = arm.RandomQ(rng);
  const InverseKinematicsResult ik = SolveInverseKinematics(
      arm.model, arm.tool.body, arm.tool.X_BF, arm.ToolPose(q), arm.joints, q);
  CHECK(ik.converged);
  CHECK((ik.q - q).norm() == 0.0);
}

TEST_CASE("inverse kinematics stays within joint limits", "[ik]") {
  const Arm arm;
  const Joint& shoulder = arm.model.joints[arm.model.FindJoint("j2")];
  const Joint& elbow = arm.model.joints[arm.model.FindJoint("j4")];
  const std::vector<int> two = {arm.model.FindJoint("j2"), arm.model.FindJoint("j4")};
  Eigen::VectorXd seed = arm.model.InitialQ();
  seed[elbow.q_start] = -1.0;

  // A pose made with the elbow exactly at its upper limit is found there.
  Eigen::VectorXd at_limit = seed;
  at_limit[shoulder.q_start] = 0.6;
  at_limit[elbow.q_start] = elbow.upper[0];
  const InverseKinematicsResult reached = SolveInverseKinematics(
      arm.model, arm.tool.body, arm.tool.X_BF, arm.ToolPose(at_limit), two, seed);
  CHECK(reached.converged);
  CHECK(reached.q[elbow.q_start] == Approx(elbow.upper[0]).margin(1e-9));
  CHECK(reached.q[elbow.q_start] <= elbow.upper[0]);

  // A pose that needs the elbow bent the other way (beyond its limit) is not reached, and
  // no coordinate leaves its limits on the way.
  Eigen::VectorXd beyond = seed;
  beyond[shoulder.q_start] = -0.5;
  beyond[elbow.q_start] = 1.0;
  const InverseKinematicsResult refused = SolveInverseKinematics(
      arm.model, arm.tool.body, arm.tool.X_BF, arm.ToolPose(beyond), two, seed);
  CHECK_FALSE(refused.converged);
  CHECK(refused.position_error > 1e-3);
  CHECK(arm.WithinLimits(refused.q));
  // Every coordinate not listed keeps its seed value.
  for (int i = 0; i < arm.model.nq; ++i) {
    if (i == shoulder.q_start || i == elbow.q_start) continue;
    CHECK(refused.q[i] == seed[i]);
  }
}

TEST_CASE("an unreachable pose returns the closest pose found and its residual", "[ik]") {
  const Arm arm;
  // The shoulder (j2) is at 0.4 m height; beyond it the links and the tool reach at most
  // 0.3 + 0.1 + 0.3 + 0.1 + 0.1 to the flange plus |(0.02, 0, 0.1)| to the tool.
  const Eigen::Vector3d shoulder(0, 0, 0.4);
  const double reach = 0.9 + std::hypot(0.02, 0.1);
  // 3 m away along x, turned as the arm is when it stretches that way (j2 a quarter turn,
  // the elbow as straight as its limit allows), so that only the position is out of reach.
  Eigen::VectorXd stretched = arm.model.InitialQ();
  stretched[arm.model.joints[arm.model.FindJoint("j2")].q_start] = 1.5707963267948966;
  stretched[arm.model.joints[arm.model.FindJoint("j4")].q_start] = -0.1;
  math::RigidTransform X;
  X.R = arm.ToolPose(stretched).R;
  X.p = Eigen::Vector3d(3.0, 0.0, 0.4);
  const InverseKinematicsResult ik = SolveInverseKinematics(
      arm.model, arm.tool.body, arm.tool.X_BF, X, arm.joints, arm.model.InitialQ());
  CHECK_FALSE(ik.converged);
  const double gap = (X.p - shoulder).norm() - reach;
  INFO("residual " << ik.position_error << " m, " << ik.angle_error << " rad; gap " << gap);
  CHECK(ik.position_error >= gap - 1e-9);
  // The arm stretches toward it, as far as the elbow's limit lets it.
  CHECK(ik.position_error < gap + 0.02);
  CHECK(ik.position_error == Approx(PositionError(arm.ToolPose(ik.q), X)).margin(1e-12));
  CHECK(ik.angle_error == Approx(AngleError(arm.ToolPose(ik.q), X)).margin(1e-12));
  CHECK(arm.WithinLimits(ik.q));
}

}  // namespace
}  // namespace csim::multibody
