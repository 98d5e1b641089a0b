#include "engine/io/cartesian_keyframes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "engine/io/model_builder.h"
#include "engine/multibody/inverse_kinematics.h"

namespace csim::io {
namespace {

using multibody::Model;

constexpr double kPi = 3.14159265358979323846;
/// The longest piece of a straight path: 1 cm and 3 degrees.
constexpr double kPieceLength = 0.01;
constexpr double kPieceAngle = 3.0 * kPi / 180.0;
/// More pieces than this on one segment is a mistake in the scene (a 100 m path).
constexpr int kMaxPieces = 10000;

std::string Num(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

/// The frame that keyframe poses place: a named frame or a body's own frame.
struct FrameRef {
  int body = -1;
  math::RigidTransform X_BF;
};

FrameRef ResolveFrame(const NodeReader& node, const Model& model) {
  const std::string name = node.AsString();
  if (const int f = model.FindFrame(name); f >= 0)
    return {model.frames[f].body, model.frames[f].X_BF};
  if (const int b = model.FindBody(name); b >= 0) return {b, math::RigidTransform::Identity()};
  if (name == "world") node.Fail("the world frame cannot be moved by joints");
  node.Fail("unknown frame or body '" + name + "'");
  return {};
}

/// A copy of the model in which the listed joints own coordinates even where they are
/// prescribed (a trajectory solved here is usually what prescribes them): every joint is
/// made an ordinary one at its initial q, and the geometry, which kinematics never reads,
/// is left out.
Model KinematicModel(const Model& model) {
  Model copy;
  copy.bodies = model.bodies;
  for (multibody::Body& body : copy.bodies) body.geometry.clear();
  copy.joints = model.joints;
  for (multibody::Joint& joint : copy.joints) joint.prescribed = false;
  multibody::AssignCoordinates(copy);
  return copy;
}

/// R_0 turned by the fraction s of the rotation from R_0 to R_1, and the straight line
/// between the positions: the pose a fraction s along a straight path.
math::RigidTransform Interpolate(const math::RigidTransform& X0, const math::RigidTransform& X1,
                                 double s) {
  const Eigen::AngleAxisd turn(Eigen::Quaterniond(X0.R.transpose() * X1.R));
  math::RigidTransform X;
  X.R = X0.R * Eigen::AngleAxisd(s * turn.angle(), turn.axis()).toRotationMatrix();
  X.p = X0.p + s * (X1.p - X0.p);
  return X;
}

double Angle(const Eigen::Matrix3d& R0, const Eigen::Matrix3d& R1) {
  return Eigen::AngleAxisd(Eigen::Quaterniond(R0.transpose() * R1)).angle();
}

class Solver {
 public:
  Solver(const std::string& trajectory, const NodeReader& frame, const std::vector<int>& joints,
         const Model& model)
      : trajectory_(trajectory), frame_name_(frame.AsString()), frame_(ResolveFrame(frame, model)),
        joints_(joints), model_(KinematicModel(model)), q_(model_.InitialQ()) {
    for (const int j : joints_) {
      const multibody::Joint& joint = model_.joints[j];
      for (int k = 0; k < joint.nv; ++k) columns_.push_back(joint.q_start + k);
    }
  }

  /// Takes a joint row as given: it reseeds the next solve.
  void SetRow(const std::vector<double>& row) {
    for (size_t c = 0; c < columns_.size(); ++c) q_[columns_[c]] = row[c];
  }
  std::vector<double> Row() const {
    std::vector<double> row(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) row[c] = q_[columns_[c]];
    return row;
  }
  /// The frame's pose at the current row.
  math::RigidTransform Pose() const {
    return multibody::CalcFramePose(model_, frame_.body, frame_.X_BF, q_);
  }

  /// Solves for X_WF from the current row; an unreachable pose fails at `at` (`where`
  /// says which point of a straight path it was).
  void Solve(const math::RigidTransform& X_WF, int keyframe, const NodeReader& at,
             const std::string& where) {
    const multibody::InverseKinematicsResult ik = multibody::SolveInverseKinematics(
        model_, frame_.body, frame_.X_BF, X_WF, joints_, q_);
    if (ik.position_error > kReachTolerance || ik.angle_error > kReachTolerance) {
      at.Fail("trajectory '" + trajectory_ + "' keyframe " + std::to_string(keyframe) +
              ": frame '" + frame_name_ + "' cannot reach " + where +
              " with the trajectory's joints: the closest pose found is " +
              Num(ik.position_error) + " m and " + Num(ik.angle_error) +
              " rad away (out of reach, or beyond the joints' limits)");
    }
    q_ = ik.q;
  }

 private:
  std::string trajectory_, frame_name_;
  FrameRef frame_;
  std::vector<int> joints_;
  Model model_;
  Eigen::VectorXd q_;
  std::vector<int> columns_;  ///< q index of each column
};

/// Fails at the first listed joint that is not between the frame's body and the world.
void CheckJointsMoveFrame(const NodeReader& frame, const std::vector<int>& joints,
                          const std::vector<NodeReader>& joint_items, const Model& model) {
  const int body = ResolveFrame(frame, model).body;
  for (size_t i = 0; i < joints.size(); ++i) {
    bool moves = false;
    for (int b = body; b >= 0 && !moves; b = model.parent[b]) moves = b == joints[i];
    if (!moves) {
      joint_items[i].Fail("joint '" + model.joints[joints[i]].name + "' does not move frame '" +
                          frame.AsString() + "' (it is not between the frame's body and the "
                          "world)");
    }
  }
}

}  // namespace

bool ReadKeyframeKind(const NodeReader& item, bool cartesian) {
  item.CheckKeys({"t", "q", "v", "pose", "path"});
  const auto pose = item.Find("pose");
  if (!pose) {
    if (auto path = item.Find("path")) path->Fail("path applies to pose keyframes only");
    item.Get("q");
    return false;
  }
  if (!cartesian) pose->Fail("a pose keyframe needs the trajectory's `frame` (what to place)");
  if (item.Find("q")) item.Get("q").Fail("give either q or pose, not both");
  if (auto v = item.Find("v")) {
    v->Fail("a pose keyframe takes no v (the joint velocities come from the interpolation)");
  }
  if (auto path = item.Find("path")) {
    const std::string kind = path->AsString();
    if (kind != "straight" && kind != "joint")
      path->Fail("unknown path '" + kind + "' (expected joint or straight)");
  }
  return true;
}

control::KeyframeTable SolveCartesianKeyframes(const std::string& trajectory,
                                               const NodeReader& frame,
                                               const std::vector<int>& joints,
                                               const std::vector<NodeReader>& joint_items,
                                               const std::vector<NodeReader>& items,
                                               const control::KeyframeTable& table,
                                               const Model& model) {
  CheckJointsMoveFrame(frame, joints, joint_items, model);
  Solver solver(trajectory, frame, joints, model);
  control::KeyframeTable out = table;
  out.keyframes.clear();
  std::optional<math::RigidTransform> previous;  // the frame's pose at the last row
  for (size_t k = 0; k < items.size(); ++k) {
    const NodeReader& item = items[k];
    const control::Keyframe& keyframe = table.keyframes[k];
    const int index = static_cast<int>(k);
    if (!item.Find("pose")) {
      solver.SetRow(keyframe.q);
      out.keyframes.push_back(keyframe);
      previous = solver.Pose();
      continue;
    }
    const NodeReader pose = item.Get("pose");
    const math::RigidTransform X_WF = ReadScenePose(pose);
    const auto path = item.Find("path");
    if (path && path->AsString() == "straight") {
      if (!previous) path->Fail("the first keyframe has no segment to make straight");
      const double pieces = std::ceil(std::max((X_WF.p - previous->p).norm() / kPieceLength,
                                               Angle(previous->R, X_WF.R) / kPieceAngle));
      if (pieces > kMaxPieces) {
        path->Fail("a straight path of " + Num(pieces) + " pieces of 1 cm or 3 degrees "
                   "(more than " + std::to_string(kMaxPieces) + ")");
      }
      const double t0 = out.keyframes.back().t;
      const int n = std::max(1, static_cast<int>(pieces));
      for (int i = 1; i < n; ++i) {
        const double s = static_cast<double>(i) / n;
        solver.Solve(Interpolate(*previous, X_WF, s), index, pose,
                     "the point " + Num(100.0 * s) + " % of the straight path to this pose");
        out.keyframes.push_back({t0 + s * (keyframe.t - t0), solver.Row(), {}});
      }
    }
    solver.Solve(X_WF, index, pose, "this pose");
    out.keyframes.push_back({keyframe.t, solver.Row(), {}});
    previous = X_WF;
  }
  return out;
}

}  // namespace csim::io
