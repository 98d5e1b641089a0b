#include "engine/io/trajectory_reader.h"

#include <cmath>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <optional>
#include <utility>

#include "engine/io/cartesian_keyframes.h"
#include "engine/io/model_builder.h"

namespace csim::io {
namespace {

using control::KeyframeField;
using multibody::Joint;
using multibody::JointType;

/// "a, b or c" from the scene names of `all`.
template <class T>
std::string Alternatives(std::initializer_list<T> all) {
  std::string text;
  int i = 0;
  for (const T& choice : all) {
    const int remaining = static_cast<int>(all.size()) - ++i;
    text += std::string(control::Name(choice)) +
            (remaining > 1 ? ", " : remaining == 1 ? " or " : "");
  }
  return text;
}

/// If `key` is present, *out = parse(its name); an unknown name fails at the value.
template <class T, class Parse>
void ReadNamed(const NodeReader& node, const char* key, const std::string& what, Parse parse,
               std::initializer_list<T> all, T* out) {
  const auto value = node.Find(key);
  if (!value) return;
  const std::string name = value->AsString();
  const std::optional<T> parsed = parse(name);
  if (!parsed) {
    value->Fail("unknown " + what + " '" + name + "' (expected " + Alternatives(all) + ")");
  }
  *out = *parsed;
}

/// "1.5", "-0.25": a number in a message.
std::string Num(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

/// One column: a coordinate of a listed joint.
struct Column {
  int joint = -1;       ///< joint (= body) index in the model
  int coordinate = 0;   ///< which of the joint's coordinates
  bool angle = false;   ///< in [rad] (revolute, a planar joint's angle), converted by `units`
};

/// A row of numbers: a list, or one number (a one-column row). `what` names it in messages.
std::vector<double> ReadRow(const NodeReader& node, const std::string& what) {
  if (!node.IsSequence()) return {node.AsDouble()};
  const Eigen::VectorXd row = node.AsVector(-1);
  if (row.size() == 0) node.Fail(what + " must not be empty");
  return std::vector<double>(row.data(), row.data() + row.size());
}

/// A keyframe's `q`: a row of numbers, or the name of one of `poses`.
std::vector<double> ReadPositions(const NodeReader& q,
                                  const std::map<std::string, std::vector<double>>& poses) {
  if (q.IsScalar()) {
    const auto pose = poses.find(q.node().Scalar());
    if (pose != poses.end()) return pose->second;
    double number = 0.0;
    if (!YAML::convert<double>::decode(q.node(), number)) {
      std::string known;
      for (const auto& [name, row] : poses) known += (known.empty() ? "" : ", ") + name;
      q.Fail("unknown pose '" + q.node().Scalar() + "' (" +
             (known.empty() ? "the trajectory has no poses" : "its poses: " + known) + ")");
    }
  }
  return ReadRow(q, "q");
}

/// The scene's named configurations (`poses:` at the top level): per pose, each listed
/// joint's coordinates [rad or m], by joint index.
using ScenePoses = std::map<std::string, std::map<int, std::vector<double>>>;

ScenePoses ReadScenePoses(const NodeReader& root, const multibody::Model& model) {
  ScenePoses out;
  const auto section = root.Find("poses");
  if (!section) return out;
  for (const auto& [key, value] : section->Entries()) {
    const std::string name = ReadName(key, "pose");
    std::map<int, std::vector<double>>& pose = out[name];
    for (const auto& [joint_key, q] : value.Entries()) {
      const int joint = model.FindJoint(joint_key.AsString());
      if (joint < 0) joint_key.Fail("unknown joint '" + joint_key.AsString() + "'");
      const multibody::Joint& j = model.joints[joint];
      if (j.type != multibody::JointType::kRevolute &&
          j.type != multibody::JointType::kPrismatic && j.type != multibody::JointType::kPlanar)
        joint_key.Fail("joint '" + j.name + "' is " + multibody::JointTypeName(j.type) +
                       ": poses give revolute, prismatic and planar joints");
      std::vector<double> row = ReadRow(q, "a pose");
      if (static_cast<int>(row.size()) != j.nv)
        q.Fail("joint '" + j.name + "' has " + std::to_string(j.nv) + " coordinates, not " +
               std::to_string(row.size()));
      pose[joint] = std::move(row);
    }
  }
  return out;
}

/// The columns of the listed joints, each joint's first column into *first_column.
std::vector<Column> ReadColumns(const NodeReader& list, const multibody::Model& model,
                                std::vector<int>* joints, std::vector<int>* first_column) {
  std::vector<Column> columns;
  for (const NodeReader& item : list.Items()) {
    const std::string name = item.AsString();
    const int j = model.FindJoint(name);
    if (j < 0) item.Fail("unknown joint '" + name + "'");
    const Joint& joint = model.joints[j];
    if (joint.type != JointType::kRevolute && joint.type != JointType::kPrismatic &&
        joint.type != JointType::kPlanar) {
      item.Fail("joint '" + name + "' is a " + multibody::JointTypeName(joint.type) +
                " joint: trajectory columns are the coordinates of revolute, prismatic and "
                "planar joints");
    }
    if (std::find(joints->begin(), joints->end(), j) != joints->end())
      item.Fail("joint '" + name + "' is listed twice");
    joints->push_back(j);
    first_column->push_back(static_cast<int>(columns.size()));
    for (int c = 0; c < joint.nv; ++c) {
      const bool angle = joint.type == JointType::kRevolute ||
                         (joint.type == JointType::kPlanar && c == 2);
      columns.push_back({j, c, angle});
    }
  }
  if (columns.empty()) list.Fail("a trajectory needs at least one joint");
  return columns;
}

/// The node of column c of keyframe `item`'s q: the list item, or the whole q (a pose name).
NodeReader PositionNode(const NodeReader& item, int c) {
  const NodeReader q = item.Get("q");
  if (!q.IsSequence()) return q;
  return q.Items()[c];
}

/// A warning for every keyframe position outside its joint's limits (pose keyframes, solved
/// within the limits, have no position of their own to check).
void AddLimitWarnings(const std::string& name, const control::KeyframeTable& table,
                      const std::vector<Column>& columns, const std::vector<NodeReader>& items,
                      const multibody::Model& model, std::vector<std::string>* warnings) {
  for (size_t k = 0; k < table.keyframes.size(); ++k) {
    if (!items[k].Find("q")) continue;
    for (size_t c = 0; c < columns.size(); ++c) {
      const Joint& joint = model.joints[columns[c].joint];
      if (joint.lower.size() == 0) continue;
      const int i = columns[c].coordinate;
      const double q = table.keyframes[k].q[c];
      if (q >= joint.lower[i] && q <= joint.upper[i]) continue;
      const std::string unit = columns[c].angle ? " rad" : " m";
      warnings->push_back(FormatLocated(
          PositionNode(items[k], static_cast<int>(c)).Location(),
          "trajectory '" + name + "' keyframe " + std::to_string(k) + ": q = " + Num(q) + unit +
              " for joint '" + joint.name + "'" +
              (joint.nv > 1 ? " coordinate " + std::to_string(i) : std::string()) +
              " is outside its limits [" + Num(joint.lower[i]) + ", " + Num(joint.upper[i]) +
              "]" + unit + ": the joint cannot follow the trajectory there"));
    }
  }
}

multibody::JointTrajectory ReadTrajectory(const NodeReader& key, const NodeReader& node,
                                          const multibody::Model& model,
                                          const ScenePoses& scene_poses,
                                          std::vector<std::string>* warnings) {
  node.CheckKeys({"joints", "frame", "keyframes", "poses", "interpolation", "end_velocity",
                  "after", "units"});
  const std::optional<NodeReader> frame = node.Find("frame");
  const std::string name = ReadName(key, "trajectory");
  const NodeReader joint_list = node.Get("joints");
  std::vector<int> joints, first_column;
  const std::vector<Column> columns = ReadColumns(joint_list, model, &joints, &first_column);
  control::KeyframeTable table;
  table.num_columns = static_cast<int>(columns.size());
  ReadTableOptions(node, &table);
  bool degrees = false;
  if (const auto units = node.Find("units")) {
    const std::string unit = units->AsString();
    if (unit != "rad" && unit != "deg")
      units->Fail("unknown units '" + unit + "' (expected rad or deg)");
    degrees = unit == "deg";
  }

  std::map<std::string, std::vector<double>> poses;
  if (const auto list = node.Find("poses")) {
    for (const auto& [pose_key, value] : list->Entries()) {
      const std::string pose = ReadName(pose_key, "pose");
      std::vector<double> row = ReadRow(value, "a pose");
      if (static_cast<int>(row.size()) != table.num_columns) {
        value.Fail("pose '" + pose + "' has " + std::to_string(row.size()) +
                   " values, expected " + std::to_string(table.num_columns) +
                   " (one per column)");
      }
      poses.emplace(pose, std::move(row));
    }
  }
  // A scene pose that gives every listed joint is one of the trajectory's poses too (its
  // own of the same name win), in the trajectory's units.
  for (const auto& [pose_name, pose] : scene_poses) {
    if (poses.count(pose_name)) continue;
    std::vector<double> row;
    for (const Column& c : columns) {
      const auto it = pose.find(c.joint);
      if (it == pose.end()) break;
      const double value = it->second[c.coordinate];
      row.push_back(degrees && c.angle ? value * 180.0 / M_PI : value);
    }
    if (row.size() == columns.size()) poses.emplace(pose_name, std::move(row));
  }

  const NodeReader keyframe_list = node.Get("keyframes");
  const std::vector<NodeReader> items = keyframe_list.Items();
  for (const NodeReader& item : items) {
    const bool pose_keyframe = ReadKeyframeKind(item, frame.has_value());
    control::Keyframe keyframe;
    keyframe.t = item.Get("t").AsDouble();
    // A pose keyframe's row is solved below, once the table as given has passed its checks.
    keyframe.q = pose_keyframe ? std::vector<double>(table.num_columns, 0.0)
                               : ReadPositions(item.Get("q"), poses);
    if (const auto v = item.Find("v")) keyframe.v = ReadRow(*v, "v");
    table.keyframes.push_back(std::move(keyframe));
  }
  if (degrees) {
    std::vector<bool> in_degrees(columns.size());
    for (size_t c = 0; c < columns.size(); ++c) in_degrees[c] = columns[c].angle;
    control::ConvertColumnsToRadians(in_degrees, &table);
  }

  control::TrajectoryBuild build = control::BuildTrajectory(table);
  if (build.error) {
    LocateTrajectoryError(*build.error, items, keyframe_list, joint_list)
        .Fail("trajectory '" + name + "': " + build.error->message);
  }
  AddLimitWarnings(name, table, columns, items, model, warnings);
  if (frame) {
    table = SolveCartesianKeyframes(name, *frame, joints, joint_list.Items(), items, table, model);
    build = control::BuildTrajectory(table);
    // Only the times of a straight path's points can fail here: too close together for
    // doubles to keep them increasing.
    if (build.error) keyframe_list.Fail("trajectory '" + name + "': " + build.error->message);
  }
  return {name, std::move(joints), std::move(first_column), std::move(*build.trajectory)};
}

}  // namespace

void ReadTableOptions(const NodeReader& node, control::KeyframeTable* table) {
  using control::AfterLastKeyframe;
  using control::EndVelocity;
  using control::Interpolation;
  ReadNamed(node, "interpolation", "interpolation", control::ParseInterpolation,
            {Interpolation::kZeroOrderHold, Interpolation::kLinear, Interpolation::kPchip,
             Interpolation::kSpline, Interpolation::kHermite},
            &table->interpolation);
  ReadNamed(node, "end_velocity", "end velocity", control::ParseEndVelocity,
            {EndVelocity::kZero, EndVelocity::kNatural}, &table->end_velocity);
  ReadNamed(node, "after", "after-last-keyframe rule", control::ParseAfterLastKeyframe,
            {AfterLastKeyframe::kHold, AfterLastKeyframe::kRepeat}, &table->after);
}

NodeReader LocateTrajectoryError(const control::TrajectoryError& error,
                                 const std::vector<NodeReader>& keyframes,
                                 const NodeReader& keyframe_list, const NodeReader& columns) {
  if (error.keyframe < 0 || error.keyframe >= static_cast<int>(keyframes.size()))
    return error.rule == control::TrajectoryRule::kNoColumns ? columns : keyframe_list;
  const NodeReader& keyframe = keyframes[error.keyframe];
  std::optional<NodeReader> at;
  if (keyframe.IsSequence()) {  // [t, value]
    const std::vector<NodeReader> parts = keyframe.Items();
    const size_t part = error.field == KeyframeField::kTime ? 0 : 1;
    const bool row = error.field == KeyframeField::kTime || error.field == KeyframeField::kPositions;
    return row && part < parts.size() ? parts[part] : keyframe;
  }
  switch (error.field) {
    case KeyframeField::kTime: at = keyframe.Find("t"); break;
    case KeyframeField::kPositions: at = keyframe.Find("q"); break;
    case KeyframeField::kVelocities: at = keyframe.Find("v"); break;
    default: break;
  }
  if (!at) return keyframe;
  if (error.column >= 0 && at->IsSequence()) {
    const std::vector<NodeReader> entries = at->Items();
    if (error.column < static_cast<int>(entries.size())) return entries[error.column];
  }
  return *at;
}

std::vector<multibody::JointTrajectory> ReadTrajectories(const NodeReader& root,
                                                         const multibody::Model& model,
                                                         std::vector<std::string>* warnings) {
  std::vector<multibody::JointTrajectory> trajectories;
  const ScenePoses scene_poses = ReadScenePoses(root, model);
  const auto section = root.Find("trajectories");
  if (!section) return trajectories;
  for (const auto& [key, value] : section->Entries())
    trajectories.push_back(ReadTrajectory(key, value, model, scene_poses, warnings));
  return trajectories;
}

}  // namespace csim::io
