#include "engine/io/mjcf_import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <mujoco/mujoco.h>

namespace csim::io {
namespace {

using math::RigidTransform;
using multibody::JointType;

/// Owns a compiled mjModel.
struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;

/// MuJoCo 2.2's XML parser and compiler keep global state: one load at a time.
std::mutex& LoadMutex() {
  static std::mutex mutex;
  return mutex;
}

Eigen::Vector3d Vec3(const mjtNum* v) { return {v[0], v[1], v[2]}; }

/// A MuJoCo quaternion (w, x, y, z) as a rotation matrix.
Eigen::Matrix3d Rotation(const mjtNum* q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
}

RigidTransform Pose(const mjtNum* pos, const mjtNum* quat) { return {Rotation(quat), Vec3(pos)}; }

RigidTransform Translation(const Eigen::Vector3d& p) { return {Eigen::Matrix3d::Identity(), p}; }

std::string Name(const mjModel* m, int type, int id) {
  const char* name = mj_id2name(m, type, id);
  return name ? name : "";
}

/// Converts one compiled model; shift_[b] is the anchor of MuJoCo body b's last joint in
/// b's frame, by which csim's body frame is moved (the header's "Frames").
class Converter {
 public:
  Converter(const mjModel* m, std::string file, std::vector<std::string>* warnings)
      : m_(m), file_(std::move(file)), warnings_(warnings) {}

  ImportedModel Convert() {
    out_.file = file_;
    out_.name = m_->names;  // MuJoCo's names start with the model's (`<mujoco model=...>`)
    if (out_.name.empty()) out_.name = std::filesystem::path(file_).stem().string();
    shift_.assign(m_->nbody, Eigen::Vector3d::Zero());
    csim_body_.assign(m_->nbody, -1);
    joint_of_.assign(m_->njnt, -1);
    body_name_.assign(m_->nbody, "");
    for (int b = 1; b < m_->nbody; ++b) {
      body_name_[b] = Name(m_, mjOBJ_BODY, b);
      if (body_name_[b].empty()) body_name_[b] = "body" + std::to_string(b);
    }
    for (int b = 1; b < m_->nbody; ++b) AddBody(b);
    for (int g = 0; g < m_->ngeom; ++g) AddGeom(g);
    for (int s = 0; s < m_->nsite; ++s) AddSite(s);
    for (int e = 0; e < m_->neq; ++e) AddEquality(e);
    for (int a = 0; a < m_->nu; ++a) AddActuator(a);
    for (int k = 0; k < m_->nkey; ++k) AddKeyframe(k);
    for (int x = 0; x < m_->nexclude; ++x) {
      const int signature = m_->exclude_signature[x];
      out_.excluded_pairs.emplace_back(BodyName((signature >> 16) - 1),
                                       BodyName((signature & 0xFFFF) - 1));
    }
    WarnDropped();
    return std::move(out_);
  }

 private:
  SourceLocation Source() const { return {file_, 0, 0}; }
  void Warn(const std::string& message) {
    if (warnings_) warnings_->push_back(file_ + ": " + message);
  }
  /// The csim name of MuJoCo body b: "" for the world (the model's base).
  std::string BodyName(int b) const { return b == 0 ? "" : body_name_[b]; }
  /// MuJoCo body b's frame in csim's frame of the same body.
  RigidTransform FromMujocoFrame(int b) const { return Translation(-shift_[b]); }

  /// Body b as a chain of csim bodies, one per joint (or one welded body).
  void AddBody(int b) {
    const int parent = m_->body_parentid[b];
    const int csim_parent = parent == 0 ? -1 : csim_body_[parent];
    // b's frame in csim's frame of its parent, before b's joints move it.
    const RigidTransform X_PB =
        FromMujocoFrame(parent) * Pose(m_->body_pos + 3 * b, m_->body_quat + 4 * b);
    const int first = m_->body_jntadr[b];
    const int count = m_->body_jntnum[b];
    if (count == 0) {
      if (m_->body_mocapid[b] >= 0)
        Warn("mocap body '" + body_name_[b] + "' is welded at its model pose");
      ImportedJoint weld;
      weld.name = body_name_[b];
      weld.type = JointType::kFixed;
      weld.parent = csim_parent;
      weld.X_PJ = X_PB;
      csim_body_[b] = AppendBody(b, body_name_[b], &weld);
      return;
    }
    int previous = csim_parent;
    Eigen::Vector3d previous_anchor = Eigen::Vector3d::Zero();
    for (int k = 0; k < count; ++k) {
      const int j = first + k;
      ImportedJoint joint = ConvertJoint(j);
      const Eigen::Vector3d anchor =
          joint.type == JointType::kFree ? Eigen::Vector3d::Zero() : Vec3(m_->jnt_pos + 3 * j);
      joint.parent = previous;
      joint.X_PJ = k == 0 ? X_PB * Translation(anchor) : Translation(anchor - previous_anchor);
      const bool last = k + 1 == count;
      const std::string name = last ? body_name_[b] : body_name_[b] + "|" + joint.name;
      previous = AppendBody(last ? b : -1, name, &joint);
      joint_of_[j] = static_cast<int>(out_.joints.size()) - 1;
      previous_anchor = anchor;
    }
    shift_[b] = previous_anchor;
    csim_body_[b] = previous;
  }

  /// Appends a csim body with its inboard joint and returns its index: MuJoCo body b's mass
  /// properties, in csim's frame of b, or none for b = -1 (a chain's intermediate body).
  int AppendBody(int b, const std::string& name, ImportedJoint* joint) {
    ImportedBody body;
    body.name = name;
    body.source = Source();
    if (b >= 0) {
      const Eigen::Vector3d anchor = JointAnchor(b);
      body.mass = m_->body_mass[b];
      body.has_inertial = body.mass > 0;
      body.com = Vec3(m_->body_ipos + 3 * b) - anchor;
      const Eigen::Matrix3d R = Rotation(m_->body_iquat + 4 * b);
      body.inertia = R * Vec3(m_->body_inertia + 3 * b).asDiagonal() * R.transpose();
    }
    const int index = static_cast<int>(out_.bodies.size());
    out_.bodies.push_back(std::move(body));
    joint->child = index;
    joint->source = Source();
    out_.joints.push_back(std::move(*joint));
    return index;
  }

  /// The anchor of body b's last joint in b's frame (zero without joints or for a free one).
  Eigen::Vector3d JointAnchor(int b) const {
    const int count = m_->body_jntnum[b];
    if (count == 0) return Eigen::Vector3d::Zero();
    const int j = m_->body_jntadr[b] + count - 1;
    if (m_->jnt_type[j] == mjJNT_FREE) return Eigen::Vector3d::Zero();
    return Vec3(m_->jnt_pos + 3 * j);
  }

  ImportedJoint ConvertJoint(int j) {
    ImportedJoint joint;
    joint.name = Name(m_, mjOBJ_JOINT, j);
    if (joint.name.empty()) joint.name = "joint" + std::to_string(j);
    const int qadr = m_->jnt_qposadr[j];
    const int vadr = m_->jnt_dofadr[j];
    const mjtNum* qpos0 = m_->qpos0 + qadr;
    switch (m_->jnt_type[j]) {
      case mjJNT_FREE: {
        joint.type = JointType::kFree;
        joint.q_initial.resize(7);
        joint.q_initial << qpos0[3], qpos0[4], qpos0[5], qpos0[6], qpos0[0], qpos0[1], qpos0[2];
        break;
      }
      case mjJNT_BALL: joint.type = JointType::kBall; break;
      case mjJNT_SLIDE: joint.type = JointType::kPrismatic; break;
      default: joint.type = JointType::kRevolute; break;
    }
    const int nv = multibody::JointNv(joint.type);
    const bool scalar = nv == 1;
    if (scalar) {
      joint.axis = Vec3(m_->jnt_axis + 3 * j).normalized();
      if (m_->jnt_limited[j]) {
        joint.lower = m_->jnt_range[2 * j] - qpos0[0];
        joint.upper = m_->jnt_range[2 * j + 1] - qpos0[0];
      }
      joint.stiffness = m_->jnt_stiffness[j];
      joint.spring_rest = m_->qpos_spring[qadr] - qpos0[0];
      joint.armature = m_->dof_armature[vadr];
      joint.friction = m_->dof_frictionloss[vadr];
      joint.damping = m_->dof_damping[vadr];
      return joint;
    }
    // Ball and free joints: csim has per-coordinate damping only.
    const std::string what = "joint '" + joint.name + "' (" +
                             multibody::JointTypeName(joint.type) + "): ";
    joint.damping = m_->dof_damping[vadr];
    for (int k = 1; k < nv; ++k) {
      if (m_->dof_damping[vadr + k] != joint.damping)
        Warn(what + "its dofs have different damping; csim uses the first's for all");
    }
    double armature = 0, friction = 0;
    for (int k = 0; k < nv; ++k) {
      armature = std::max(armature, m_->dof_armature[vadr + k]);
      friction = std::max(friction, m_->dof_frictionloss[vadr + k]);
    }
    if (armature > 0) Warn(what + "armature dropped (csim: revolute and prismatic joints only)");
    if (friction > 0) Warn(what + "frictionloss dropped (csim: revolute and prismatic only)");
    if (m_->jnt_stiffness[j] > 0) Warn(what + "stiffness dropped (no rotational spring in csim)");
    if (m_->jnt_limited[j]) Warn(what + "range dropped (csim has no cone limit)");
    return joint;
  }

  void AddGeom(int g) {
    ImportedGeometry geometry;
    geometry.name = Name(m_, mjOBJ_GEOM, g);
    geometry.source = Source();
    const mjtNum* size = m_->geom_size + 3 * g;
    const std::string label = "geom " + (geometry.name.empty() ? std::to_string(g)
                                                               : "'" + geometry.name + "'");
    switch (m_->geom_type[g]) {
      case mjGEOM_PLANE: geometry.shape = ImportedShape::kPlane; break;
      case mjGEOM_SPHERE:
        geometry.shape = ImportedShape::kSphere;
        geometry.radius = size[0];
        break;
      case mjGEOM_CAPSULE:
        geometry.shape = ImportedShape::kCapsule;
        geometry.radius = size[0];
        geometry.length = 2 * size[1];
        break;
      case mjGEOM_CYLINDER:
        geometry.shape = ImportedShape::kCylinder;
        geometry.radius = size[0];
        geometry.length = 2 * size[1];
        break;
      case mjGEOM_ELLIPSOID:
        geometry.shape = ImportedShape::kEllipsoid;
        geometry.radii = Vec3(size);
        break;
      case mjGEOM_BOX:
        geometry.shape = ImportedShape::kBox;
        geometry.size = 2 * Vec3(size);
        break;
      case mjGEOM_MESH: {
        geometry.shape = ImportedShape::kMesh;
        const int mesh = m_->geom_dataid[g];
        const int v0 = m_->mesh_vertadr[mesh], f0 = m_->mesh_faceadr[mesh];
        for (int v = 0; v < m_->mesh_vertnum[mesh]; ++v) {
          const float* p = m_->mesh_vert + 3 * (v0 + v);
          geometry.vertices.emplace_back(p[0], p[1], p[2]);
        }
        for (int f = 0; f < m_->mesh_facenum[mesh]; ++f) {
          const int* t = m_->mesh_face + 3 * (f0 + f);
          geometry.triangles.emplace_back(t[0], t[1], t[2]);
        }
        break;
      }
      default:
        Warn(label + ": a height field is dropped (csim has no height fields)");
        return;
    }
    const int b = m_->geom_bodyid[g];
    geometry.pose = FromMujocoFrame(b) * Pose(m_->geom_pos + 3 * g, m_->geom_quat + 4 * g);
    geometry.collide = m_->geom_contype[g] != 0 || m_->geom_conaffinity[g] != 0;
    // MuJoCo's rule: a geom's own rgba wins over its material's unless it is the default.
    const float* rgba = m_->geom_rgba + 4 * g;
    const bool own_rgba = rgba[0] != 0.5f || rgba[1] != 0.5f || rgba[2] != 0.5f || rgba[3] != 1;
    if (!own_rgba && m_->geom_matid[g] >= 0) rgba = m_->mat_rgba + 4 * m_->geom_matid[g];
    geometry.rgba = Eigen::Vector4d(rgba[0], rgba[1], rgba[2], rgba[3]);
    if (b == 0) {
      out_.base_geometry.push_back(std::move(geometry));
    } else {
      out_.bodies[csim_body_[b]].geometry.push_back(std::move(geometry));
    }
  }

  void AddSite(int s) {
    ImportedFrame frame;
    frame.name = Name(m_, mjOBJ_SITE, s);
    if (frame.name.empty()) frame.name = "site" + std::to_string(s);
    const int b = m_->site_bodyid[s];
    frame.body = BodyName(b);
    frame.X_BF = FromMujocoFrame(b) * Pose(m_->site_pos + 3 * s, m_->site_quat + 4 * s);
    frame.source = Source();
    out_.frames.push_back(std::move(frame));
  }

  void AddEquality(int e) {
    ImportedConstraint c;
    c.name = Name(m_, mjOBJ_EQUALITY, e);
    c.source = Source();
    const std::string label =
        "equality " + (c.name.empty() ? std::to_string(e) : "'" + c.name + "'");
    if (!m_->eq_active[e]) {
      Warn(label + " is inactive and dropped");
      return;
    }
    const mjtNum* data = m_->eq_data + mjNEQDATA * e;
    const int o1 = m_->eq_obj1id[e], o2 = m_->eq_obj2id[e];
    switch (m_->eq_type[e]) {
      case mjEQ_CONNECT:
        // data: the anchor in body 1 and, compiled, the same point in body 2 at qpos0.
        c.type = ImportedConstraintType::kBall;
        c.body_a = BodyName(o1);
        c.body_b = BodyName(o2);
        c.point_a = FromMujocoFrame(o1) * Vec3(data);
        c.point_b = FromMujocoFrame(o2) * Vec3(data + 3);
        break;
      case mjEQ_WELD:
        // data[3..9]: body 2's pose in body 1 that the weld holds (compiled from qpos0 when
        // not given); data[0..2], the point where the wrench acts, and data[10], the
        // torque scale, do not change what is held.
        c.type = ImportedConstraintType::kWeld;
        c.body_a = BodyName(o1);
        c.body_b = BodyName(o2);
        c.pose_a = FromMujocoFrame(o1) * Pose(data + 3, data + 6);
        c.pose_b = FromMujocoFrame(o2);
        if (data[10] != 1.0) Warn(label + ": torquescale dropped (csim welds are rigid)");
        break;
      case mjEQ_JOINT: {
        // MuJoCo: qpos1 - qpos0_1 = sum_k data[k] (qpos2 - qpos0_2)^k, which in csim's q
        // (measured from qpos0) is q1 = data[0] + data[1] q2 when the rest vanish.
        if (o2 < 0) {
          Warn(label + " fixes joint '" + Name(m_, mjOBJ_JOINT, o1) +
               "' and is dropped; lock the joint in the scene instead");
          return;
        }
        if (data[2] != 0 || data[3] != 0 || data[4] != 0) {
          Warn(label + ": a polycoef of degree above 1 cannot be a coupler; dropped");
          return;
        }
        c.type = ImportedConstraintType::kCoupler;
        c.joint = out_.joints[joint_of_[o1]].name;
        c.follows = out_.joints[joint_of_[o2]].name;
        c.offset = data[0];
        c.ratio = data[1];
        break;
      }
      default:
        Warn(label + ": only connect, weld and joint equalities are converted; dropped");
        return;
    }
    out_.constraints.push_back(std::move(c));
  }

  void AddActuator(int a) {
    ImportedActuator act;
    act.name = Name(m_, mjOBJ_ACTUATOR, a);
    if (act.name.empty()) act.name = "actuator" + std::to_string(a);
    act.source = Source();
    const std::string label = "actuator '" + act.name + "'";
    const int trn = m_->actuator_trntype[a];
    const int j = m_->actuator_trnid[2 * a];
    if ((trn != mjTRN_JOINT && trn != mjTRN_JOINTINPARENT) ||
        (m_->jnt_type[j] != mjJNT_HINGE && m_->jnt_type[j] != mjJNT_SLIDE)) {
      Warn(label + ": only actuators on hinge and slide joints are converted; dropped");
      return;
    }
    if (m_->actuator_dyntype[a] != mjDYN_NONE || m_->actuator_gaintype[a] != mjGAIN_FIXED) {
      Warn(label + ": activation dynamics or a non-fixed gain cannot be converted; dropped");
      return;
    }
    act.joint = out_.joints[joint_of_[j]].name;
    const double gear = m_->actuator_gear[6 * a];
    const mjtNum* gain = m_->actuator_gainprm + mjNGAIN * a;
    const mjtNum* bias = m_->actuator_biasprm + mjNBIAS * a;
    // Joint effort = gear * force, force = gain ctrl + bias[0] + bias[1] length + bias[2]
    // velocity with length = gear q: a servo's joint gains are gear^2 times MuJoCo's.
    const bool motor = m_->actuator_biastype[a] == mjBIAS_NONE;
    const bool affine = m_->actuator_biastype[a] == mjBIAS_AFFINE && bias[0] == 0;
    const bool position = affine && bias[1] == -gain[0] && bias[2] <= 0;
    const bool velocity = affine && bias[1] == 0 && bias[2] == -gain[0];
    if (!motor && !position && !velocity) {
      Warn(label + ": a bias that is not a position or velocity servo's; dropped");
      return;
    }
    if (position) act.kp = gear * gear * gain[0];
    if (position || velocity) act.kd = -gear * gear * bias[2];
    const mjtNum* range = nullptr;
    double scale = std::abs(gear);
    if (m_->actuator_forcelimited[a]) {
      range = m_->actuator_forcerange + 2 * a;
    } else if (motor && m_->actuator_ctrllimited[a]) {
      range = m_->actuator_ctrlrange + 2 * a;
      scale *= std::abs(gain[0]);
    }
    if (range) {
      if (range[0] != -range[1])
        Warn(label + ": an asymmetric range becomes the effort limit of its larger end");
      act.effort_limit = scale * std::max(std::abs(range[0]), std::abs(range[1]));
    }
    out_.actuators.push_back(std::move(act));
  }

  void AddKeyframe(int k) {
    ImportedPose pose;
    pose.name = Name(m_, mjOBJ_KEY, k);
    if (pose.name.empty()) pose.name = "key" + std::to_string(k);
    pose.source = Source();
    const mjtNum* qpos = m_->key_qpos + m_->nq * k;
    for (int j = 0; j < m_->njnt; ++j) {
      const int adr = m_->jnt_qposadr[j];
      Eigen::VectorXd q;
      switch (m_->jnt_type[j]) {
        case mjJNT_FREE:
          q.resize(7);
          q << qpos[adr + 3], qpos[adr + 4], qpos[adr + 5], qpos[adr + 6], qpos[adr],
              qpos[adr + 1], qpos[adr + 2];
          break;
        case mjJNT_BALL:
          q = Eigen::Map<const Eigen::Vector4d>(qpos + adr);
          break;
        default:
          q = Eigen::VectorXd::Constant(1, qpos[adr] - m_->qpos0[adr]);
          break;
      }
      pose.joints.push_back(out_.joints[joint_of_[j]].name);
      pose.q.push_back(std::move(q));
    }
    bool moving = false;
    for (int i = 0; i < m_->nv; ++i) moving = moving || m_->key_qvel[m_->nv * k + i] != 0;
    if (moving) Warn("keyframe '" + pose.name + "': its velocities are dropped");
    out_.poses.push_back(std::move(pose));
  }

  /// One warning for each kind of element csim has no place for.
  void WarnDropped() {
    const auto count = [&](int n, const std::string& what) {
      if (n > 0) Warn(std::to_string(n) + " " + what + " dropped (csim has none)");
    };
    count(m_->ntendon, "tendon(s)");
    count(m_->nsensor, "sensor(s)");
    count(m_->ncam, "camera(s)");
    count(m_->nlight, "light(s)");
    count(m_->nskin, "skin(s)");
    count(m_->npair, "predefined contact pair(s)");
    const Eigen::Vector3d gravity = Vec3(m_->opt.gravity);
    if (gravity != Eigen::Vector3d(0, 0, -9.81))
      Warn("option gravity is dropped: the scene's settings.gravity applies");
  }

  const mjModel* m_;
  std::string file_;
  std::vector<std::string>* warnings_;
  ImportedModel out_;
  std::vector<Eigen::Vector3d> shift_;   ///< per MuJoCo body (see the class comment)
  std::vector<int> csim_body_;          ///< per MuJoCo body: its csim body (chain end)
  std::vector<int> joint_of_;           ///< per MuJoCo joint: its csim joint
  std::vector<std::string> body_name_;  ///< per MuJoCo body: its csim name
};

}  // namespace

SourceLocation MujocoErrorLocation(const std::string& message, const std::string& file) {
  SourceLocation where{file, 0, 0};
  std::smatch match;
  // "Element 'joint', line 3" (XML reader), "line = 4, column = -1" (compiler),
  // "Line number=2" (tinyxml2 through MuJoCo).
  static const std::regex line("[Ll]ine(?: number)? ?[=,]? ?(-?[0-9]+)");
  static const std::regex column("[Cc]olumn ?[=,]? ?(-?[0-9]+)");
  if (std::regex_search(message, match, line)) where.line = std::max(0, std::stoi(match[1]));
  if (where.line > 0 && std::regex_search(message, match, column))
    where.column = std::max(0, std::stoi(match[1]));
  return where;
}

ImportedModel ImportMjcfFile(const std::string& path, std::vector<std::string>* warnings) {
  char error[1024] = "";
  ModelPtr model;
  {
    std::lock_guard<std::mutex> lock(LoadMutex());
    model.reset(mj_loadXML(path.c_str(), nullptr, error, sizeof error));
  }
  // MuJoCo's messages end in a newline and spread over lines: one line for csim's.
  std::string message = error;
  for (char& c : message) c = c == '\n' ? ' ' : c;
  while (!message.empty() && message.back() == ' ') message.pop_back();
  if (!model) {
    throw InputError(MujocoErrorLocation(message, path), "MuJoCo cannot load the model: " +
                                                             message);
  }
  if (!message.empty() && warnings) warnings->push_back(path + ": MuJoCo: " + message);
  ImportedModel imported = Converter(model.get(), path, warnings).Convert();
  return imported;
}

}  // namespace csim::io
