#include "engine/io/urdf_import.h"

#include <cmath>
#include <optional>

#include "engine/math/rotation.h"

namespace csim::io {
namespace {

math::RigidTransform ToTransform(const UrdfPose& pose) {
  return {UrdfRotation(pose.rpy), pose.xyz};
}

SourceLocation At(const UrdfModel& urdf, int line) { return {urdf.file, line, 0}; }

/// One <collision> or <visual> geometry (`element_line` is the element's, `name` its name).
ImportedGeometry ConvertGeometry(const UrdfModel& urdf, const UrdfGeometry& in,
                                 const UrdfPose& origin, const std::string& name,
                                 int element_line, const ModelUriContext& uris) {
  ImportedGeometry g;
  g.name = name;
  g.pose = ToTransform(origin);
  g.source = At(urdf, in.line ? in.line : element_line);
  switch (in.shape) {
    case UrdfShape::kBox: g.shape = ImportedShape::kBox; g.size = in.size; break;
    case UrdfShape::kSphere: g.shape = ImportedShape::kSphere; g.radius = in.radius; break;
    case UrdfShape::kCylinder:
      g.shape = ImportedShape::kCylinder;
      g.radius = in.radius;
      g.length = in.length;
      break;
    case UrdfShape::kCapsule:
      g.shape = ImportedShape::kCapsule;
      g.radius = in.radius;
      g.length = in.length;
      break;
    case UrdfShape::kMesh:
      g.shape = ImportedShape::kMesh;
      g.mesh_file = ResolveModelUri(in.filename, uris, g.source);
      g.scale = in.scale;
      break;
  }
  return g;
}

/// The colour of a visual's material: its own <color>, else that of the robot-level
/// material it names (none when neither gives one).
std::optional<Eigen::Vector4d> VisualColor(const UrdfModel& urdf, const UrdfVisual& v) {
  if (!v.material) return std::nullopt;
  if (v.material->rgba) return v.material->rgba;
  for (const UrdfMaterial& m : urdf.materials)
    if (m.name == v.material->name) return m.rgba;
  return std::nullopt;
}

/// A <visual>: visual-only geometry (collide false); a mesh stays a reference to its file.
ImportedGeometry ConvertVisual(const UrdfModel& urdf, const UrdfVisual& v,
                               const ModelUriContext& uris) {
  ImportedGeometry g = ConvertGeometry(urdf, v.geometry, v.origin, v.name, v.line, uris);
  g.collide = false;
  g.rgba = VisualColor(urdf, v);
  return g;
}

/// A rotation that takes z onto the unit vector `n`: the frame of a planar joint whose
/// normal is n.
Eigen::Matrix3d RotationTakingZTo(const Eigen::Vector3d& n) {
  return Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), n).toRotationMatrix();
}

/// Re-expresses body b in a frame turned by R_old_new about its origin: its centre of mass,
/// inertia and geometry, and the frames of the joints it is the parent of.
void TurnBodyFrame(ImportedModel& model, int b, const Eigen::Matrix3d& R_old_new) {
  ImportedBody& body = model.bodies[b];
  const Eigen::Matrix3d R_new_old = R_old_new.transpose();
  body.com = R_new_old * body.com;
  body.inertia = R_new_old * body.inertia * R_old_new;
  for (ImportedGeometry& g : body.geometry) {
    g.pose.R = R_new_old * g.pose.R;
    g.pose.p = R_new_old * g.pose.p;
  }
  for (ImportedJoint& j : model.joints) {
    if (j.parent != b) continue;
    j.X_PJ.R = R_new_old * j.X_PJ.R;
    j.X_PJ.p = R_new_old * j.X_PJ.p;
  }
}

}  // namespace

ImportedModel ImportUrdf(const UrdfModel& urdf, const ModelUriContext& uris, bool visuals,
                         std::vector<std::string>* warnings) {
  ImportedModel out;
  out.name = urdf.name;
  out.file = urdf.file;
  for (const UrdfLink& link : urdf.links) {
    ImportedBody body;
    body.name = link.name;
    body.source = At(urdf, link.line);
    if (link.inertial) {
      body.has_inertial = true;
      body.mass = link.inertial->mass;
      body.com = link.inertial->origin.xyz;
      body.inertia = InertiaInLinkFrame(*link.inertial);
    }
    for (const UrdfCollision& c : link.collisions)
      body.geometry.push_back(
          ConvertGeometry(urdf, c.geometry, c.origin, c.name, c.line, uris));
    if (visuals) {
      for (const UrdfVisual& v : link.visuals) body.geometry.push_back(ConvertVisual(urdf, v, uris));
    }
    out.bodies.push_back(std::move(body));
  }
  for (const UrdfJoint& uj : urdf.joints) {
    ImportedJoint j;
    j.name = uj.name;
    j.parent = uj.parent_link;
    j.child = uj.child_link;
    j.X_PJ = ToTransform(uj.origin);
    j.axis = uj.axis;
    j.source = At(urdf, uj.line);
    j.damping = uj.dynamics.damping;
    j.friction = uj.dynamics.friction;
    switch (uj.type) {
      case UrdfJointType::kRevolute:
      case UrdfJointType::kContinuous: j.type = multibody::JointType::kRevolute; break;
      case UrdfJointType::kPrismatic: j.type = multibody::JointType::kPrismatic; break;
      case UrdfJointType::kFixed: j.type = multibody::JointType::kFixed; break;
      case UrdfJointType::kFloating: j.type = multibody::JointType::kFree; break;
      case UrdfJointType::kPlanar: j.type = multibody::JointType::kPlanar; break;
    }
    const bool one_coordinate = j.type == multibody::JointType::kRevolute ||
                                j.type == multibody::JointType::kPrismatic;
    if (uj.limit && one_coordinate) {
      const UrdfLimit& limit = *uj.limit;
      const SourceLocation where = At(urdf, limit.line);
      // A continuous joint has no position limits (urdfdom reads them and ignores them).
      if (uj.type != UrdfJointType::kContinuous) {
        if (limit.lower < limit.upper) {
          j.lower = limit.lower;
          j.upper = limit.upper;
        } else if (warnings) {
          warnings->push_back(FormatLocated(
              where, "joint '" + uj.name + "': limits lower " + std::to_string(limit.lower) +
                         " >= upper " + std::to_string(limit.upper) +
                         " are ignored: the joint is imported without position limits"));
        }
      }
      if (limit.effort > 0) {
        j.effort_limit = limit.effort;
      } else if (warnings) {
        warnings->push_back(FormatLocated(
            where, "joint '" + uj.name + "': effort limit " + std::to_string(limit.effort) +
                       " is taken as no limit on its actuators"));
      }
    }
    if (!one_coordinate && (j.damping > 0 || j.friction > 0) && warnings) {
      warnings->push_back(FormatLocated(
          j.source, "joint '" + uj.name + "' (" + UrdfJointTypeName(uj.type) +
                        "): <dynamics> is imported only on revolute, continuous and "
                        "prismatic joints, and is ignored here"));
      j.damping = j.friction = 0.0;
    }
    if (uj.mimic) {
      ImportedConstraint c;
      c.type = ImportedConstraintType::kCoupler;
      c.name = uj.name + "_mimic";
      c.joint = uj.name;
      c.follows = uj.mimic->joint;
      c.ratio = uj.mimic->multiplier;
      c.offset = uj.mimic->offset;
      c.source = At(urdf, uj.mimic->line);
      out.constraints.push_back(std::move(c));
    }
    out.joints.push_back(std::move(j));
  }
  // Planar joints: csim's planar joint moves in the xy plane of its frame, so the frame is
  // turned to take z onto the URDF normal, and the child is re-expressed in it.
  for (size_t k = 0; k < out.joints.size(); ++k) {
    ImportedJoint& j = out.joints[k];
    if (j.type != multibody::JointType::kPlanar) continue;
    const Eigen::Matrix3d R_old_new = RotationTakingZTo(j.axis);
    j.X_PJ.R = j.X_PJ.R * R_old_new;
    TurnBodyFrame(out, j.child, R_old_new);
    math::RigidTransform X_new_old;
    X_new_old.R = R_old_new.transpose();
    out.frames.push_back({urdf.links[j.child].name + "_link_frame", urdf.links[j.child].name,
                          X_new_old, j.source});
  }
  // ROS's convention: a root link named "world" is the world itself (a robot bolted down in
  // its file); its joints then attach to the base, which the scene's `attach` places.
  if (urdf.root >= 0 && urdf.links[urdf.root].name == "world" && !urdf.links[urdf.root].inertial &&
      urdf.links[urdf.root].collisions.empty() &&
      (!visuals || urdf.links[urdf.root].visuals.empty())) {
    const int w = urdf.root;
    out.bodies.erase(out.bodies.begin() + w);
    for (ImportedJoint& j : out.joints) {
      j.parent = j.parent == w ? -1 : j.parent > w ? j.parent - 1 : j.parent;
      j.child = j.child > w ? j.child - 1 : j.child;
    }
  }
  for (const UrdfTransmission& t : urdf.transmissions) {
    const ImportedJoint& joint = out.joints[t.joint_index];
    ImportedActuator a;
    a.name = t.actuator.empty() ? t.name : t.actuator;
    a.joint = t.joint;
    a.effort_limit = joint.effort_limit;
    a.source = At(urdf, t.line);
    out.actuators.push_back(std::move(a));
  }
  return out;
}

}  // namespace csim::io
