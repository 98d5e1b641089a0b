#include "engine/io/hdf5_model.h"

#include <algorithm>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/io/hdf5_series.h"  // Describe
#include "engine/math/rotation.h"

namespace csim::io {
namespace {

/// Rows per chunk of a /model table, at most: the tables are written once and read whole,
/// and a model's joints, constraints or actuators rarely fill even one such chunk.
constexpr hsize_t kMaxChunkRows = 512;

/// A string list `name` in `group` with its description (no unit); returns it.
Hdf5Dataset WriteStringList(Hdf5Group& group, const char* name,
                            const std::vector<std::string>& values, const char* description) {
  Hdf5Dataset dataset = group.CreateStringList(name, values);
  Describe(dataset, "", description);
  return dataset;
}

/// An int32 list `name` in `group` with its units and description.
void WriteIntList(Hdf5Group& group, const char* name, const std::vector<int32_t>& values,
                  const char* units, const char* description) {
  Hdf5Dataset dataset = group.CreateIntList(name, values);
  Describe(dataset, units, description);
}

/// A float64 table `name` in `group` (an extendible dataset): rows of shape `row_shape`,
/// `values` row-major.
void WriteFloatRows(Hdf5Group& group, const char* name, const std::vector<double>& values,
                    const std::vector<hsize_t>& row_shape, const char* units,
                    const char* description) {
  hsize_t row_size = 1;
  for (hsize_t extent : row_shape) row_size *= extent;
  const hsize_t rows = values.size() / row_size;
  const hsize_t chunk = std::clamp<hsize_t>(rows, 1, kMaxChunkRows);
  Hdf5Dataset dataset = group.CreateExtendible(name, Hdf5Type::kFloat64, row_shape, chunk);
  dataset.AppendRows(values.data(), rows);
  Describe(dataset, units, description);
}

/// A float64 list `name` in `group` (an extendible 1-d dataset, as /model/joint_friction).
void WriteFloatList(Hdf5Group& group, const char* name, const std::vector<double>& values,
                    const char* units, const char* description) {
  WriteFloatRows(group, name, values, {}, units, description);
}

/// /model/joint_names|types|q_start|v_start: what each joint is and where its
/// coordinates lie in q and v.
void WriteJoints(Hdf5Group& group, const multibody::Model& model) {
  std::vector<std::string> joint_names, joint_types;
  std::vector<int32_t> q_start, v_start;
  for (const multibody::Joint& joint : model.joints) {
    joint_names.push_back(joint.name);
    joint_types.push_back(multibody::JointTypeName(joint.type));
    // A joint that owns no coordinates (fixed, prescribed) is -1 in both.
    q_start.push_back(joint.q_start >= 0 ? joint.q_start : -1);
    v_start.push_back(joint.q_start >= 0 ? joint.v_start : -1);
  }
  WriteStringList(group, "joint_names", joint_names,
                  "joints, in index order (joint i is the inboard joint of body i)");
  WriteStringList(group, "joint_types", joint_types, "type of each joint (scene-format.md)");
  WriteIntList(group, "joint_q_start", q_start, "1",
               "offset of each joint's coordinates in q (-1: owns none)");
  WriteIntList(group, "joint_v_start", v_start, "1",
               "offset of each joint's coordinates in v (-1: owns none)");
}

/// /model/joint_friction: per velocity coordinate, 0 where a joint has none (or owns no
/// coordinates).
void WriteJointFriction(Hdf5Group& group, const multibody::Model& model) {
  std::vector<double> friction(model.nv, 0.0);
  for (const multibody::Joint& joint : model.joints)
    if (joint.v_start >= 0 && joint.friction.size() == joint.nv)
      std::copy_n(joint.friction.data(), joint.nv, friction.begin() + joint.v_start);
  WriteFloatList(group, "joint_friction", friction, "mixed",
                 "dry friction limit of each velocity coordinate [N or N*m], 0: none");
}

/// /model/joint_parent|position|quaternion: where each joint attaches (Joint::parent,
/// Joint::X_PJ), so that a reader can draw the mechanism from the file alone.
void WriteJointFrames(Hdf5Group& group, const multibody::Model& model) {
  std::vector<int32_t> parent;
  std::vector<double> position, quaternion;
  for (const multibody::Joint& joint : model.joints) {
    parent.push_back(joint.parent);
    position.insert(position.end(), joint.X_PJ.p.data(), joint.X_PJ.p.data() + 3);
    const Eigen::Vector4d q = math::QuaternionFromRotation(joint.X_PJ.R);
    quaternion.insert(quaternion.end(), q.data(), q.data() + 4);
  }
  WriteIntList(group, "joint_parent", parent, "1",
               "parent body of each joint (index into body_names), -1 the world");
  WriteFloatRows(group, "joint_position", position, {3}, "m",
                 "origin of each joint's frame in its parent body's frame");
  WriteFloatRows(group, "joint_quaternion", quaternion, {4}, "1",
                 "orientation (w, x, y, z) of each joint's frame in its parent body's frame");
}

/// /model/constraint_*: names, types and each constraint's rows of /constraints/impulse.
void WriteConstraintModel(Hdf5Group& group, const multibody::Model& model) {
  std::vector<std::string> names, types;
  std::vector<int32_t> first_row, row_count;
  const std::vector<int> offsets = multibody::HolonomicRowOffsets(model.constraints);
  for (size_t i = 0; i < model.constraints.size(); ++i) {
    const multibody::HolonomicConstraint& c = model.constraints[i];
    names.push_back(c.name);
    types.push_back(multibody::HolonomicTypeName(c.type));
    first_row.push_back(offsets[i]);
    row_count.push_back(offsets[i + 1] - offsets[i]);
  }
  WriteStringList(group, "constraint_names", names, "constraints, in file order");
  WriteStringList(group, "constraint_types", types,
                  "type of each constraint: coupler, distance, ball or weld");
  WriteIntList(group, "constraint_first_row", first_row, "1",
               "each constraint's first column of /constraints/impulse");
  WriteIntList(group, "constraint_row_count", row_count, "1",
               "each constraint's number of columns of /constraints/impulse");
}

/// /model/constraint_body_a|b and constraint_point_a|b: what each constraint joins
/// (multibody::AttachmentOf).
void WriteConstraintAttachments(Hdf5Group& group, const multibody::Model& model) {
  std::vector<int32_t> body_a, body_b;
  std::vector<double> point_a, point_b;
  for (const multibody::HolonomicConstraint& c : model.constraints) {
    const multibody::HolonomicAttachment a = multibody::AttachmentOf(c);
    body_a.push_back(a.body_a);
    body_b.push_back(a.body_b);
    point_a.insert(point_a.end(), a.p_AP.data(), a.p_AP.data() + 3);
    point_b.insert(point_b.end(), a.p_BQ.data(), a.p_BQ.data() + 3);
  }
  WriteIntList(group, "constraint_body_a", body_a, "1",
               "first body of each constraint (index into body_names), -1 the world");
  WriteIntList(group, "constraint_body_b", body_b, "1",
               "second body of each constraint (index into body_names), -1 the world");
  WriteFloatRows(group, "constraint_point_a", point_a, {3}, "m",
                 "each constraint's point P in body_a's frame (0 for a coupler)");
  WriteFloatRows(group, "constraint_point_b", point_b, {3}, "m",
                 "each constraint's point Q in body_b's frame (0 for a coupler)");
}

/// /model/actuator_*: the actuators as the run uses them (multibody/actuator.h).
void WriteActuatorModel(Hdf5Group& group, const multibody::Model& model) {
  std::vector<std::string> names;
  std::vector<int32_t> joint, coordinate;
  std::vector<double> kp, kd, limit;
  for (const multibody::Actuator& a : model.actuators) {
    names.push_back(a.name);
    joint.push_back(a.joint);
    coordinate.push_back(a.dof);
    kp.push_back(a.kp);
    kd.push_back(a.kd);
    limit.push_back(a.effort_limit);
  }
  WriteStringList(group, "actuator_names", names,
                  "actuators, in scene order (the columns of /actuators/*)");
  WriteIntList(group, "actuator_joint", joint, "1",
               "index of the joint each actuator drives (into joint_names)");
  WriteIntList(group, "actuator_coordinate", coordinate, "1",
               "index in v of the coordinate each actuator drives");
  WriteFloatList(group, "actuator_kp", kp, "mixed",
                 "proportional gain [N*m/rad or N/m], 0 for force actuators");
  WriteFloatList(group, "actuator_kd", kd, "mixed",
                 "derivative gain at the initial state [N*m*s/rad or N*s/m], 0 for force "
                 "actuators");
  WriteFloatList(group, "actuator_effort_limit", limit, "mixed",
                 "effort limit [N*m or N], inf: none");
}

}  // namespace

Hdf5Dataset WriteModel(Hdf5File& file, const multibody::Model& model) {
  Hdf5Group group = file.CreateGroup("model");
  WriteJoints(group, model);
  Hdf5Dataset nq = group.CreateScalar("nq", model.nq);
  Describe(nq, "1", "number of generalised positions");
  Hdf5Dataset nv = group.CreateScalar("nv", model.nv);
  Describe(nv, "1", "number of generalised velocities");
  std::vector<std::string> body_names;
  for (const multibody::Body& body : model.bodies) body_names.push_back(body.name);
  Hdf5Dataset bodies =
      WriteStringList(group, "body_names", body_names, "bodies, in index order (world excluded)");
  if (model.HasJointFriction()) WriteJointFriction(group, model);
  WriteJointFrames(group, model);
  if (!model.constraints.empty()) {
    WriteConstraintModel(group, model);
    WriteConstraintAttachments(group, model);
  }
  if (!model.actuators.empty()) WriteActuatorModel(group, model);
  return bodies;
}

}  // namespace csim::io
