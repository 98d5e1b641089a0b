#include "bench/mjcf_writer.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "engine/multibody/kinematics.h"
#include "engine/multibody/workspace.h"

namespace csim::bench {
namespace {

using geometry::ShapeType;

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

std::string Vec(const Eigen::Vector3d& v) { return Num(v[0]) + " " + Num(v[1]) + " " + Num(v[2]); }

// pos="..." quat="w x y z" of a pose.
std::string PoseAttributes(const math::RigidTransform& X) {
  const Eigen::Quaterniond q(X.R);
  return "pos=\"" + Vec(X.p) + "\" quat=\"" + Num(q.w()) + " " + Num(q.x()) + " " + Num(q.y()) +
         " " + Num(q.z()) + "\"";
}

// MuJoCo type and size (half extents, half lengths) of a csim geometry.
std::string ShapeAttributes(const geometry::Geometry& g) {
  const Eigen::Vector3d& s = g.size;
  switch (g.type) {
    case ShapeType::kSphere: return "type=\"sphere\" size=\"" + Num(s[0]) + "\"";
    case ShapeType::kBox: return "type=\"box\" size=\"" + Vec(0.5 * s) + "\"";
    case ShapeType::kCylinder:
      return "type=\"cylinder\" size=\"" + Num(s[0]) + " " + Num(0.5 * s[1]) + "\"";
    case ShapeType::kCapsule:
      return "type=\"capsule\" size=\"" + Num(s[0]) + " " + Num(0.5 * s[1]) + "\"";
    case ShapeType::kEllipsoid: return "type=\"ellipsoid\" size=\"" + Vec(s) + "\"";
    case ShapeType::kHalfspace: return "type=\"plane\" size=\"0 0 1\"";
    case ShapeType::kMesh: break;
  }
  throw std::invalid_argument("mjcf: mesh geometry is not supported by the benchmark");
}

double Friction(const multibody::Model& model, const geometry::Geometry& g) {
  return g.material >= 0 ? model.materials[g.material].friction : geometry::Material{}.friction;
}

// The collision geometries, each line after `indent` (the nesting depth of their body).
void WriteGeoms(const multibody::Model& model, const std::vector<geometry::Geometry>& geoms,
                const std::string& indent, std::ostringstream& out) {
  for (const geometry::Geometry& g : geoms) {
    if (!g.collide) continue;
    out << indent << "    <geom " << ShapeAttributes(g) << " " << PoseAttributes(g.X_BG) << " friction=\""
        << Num(Friction(model, g)) << " 0.005 0.0001\"/>\n";
  }
}

// Uniform value of a per-velocity joint parameter (MuJoCo's joint attributes are scalars);
// 0 when absent.
double UniformJointValue(const multibody::Joint& joint, const Eigen::VectorXd& values,
                         const char* what) {
  if (values.size() == 0) return 0.0;
  if ((values.array() != values[0]).any())
    throw std::invalid_argument("mjcf: joint '" + joint.name + "' has a " + what +
                                " that differs between its velocities");
  return values[0];
}

// The <joint> element of a body's inboard joint (none for a fixed joint). MuJoCo measures
// hinge and slide angles from the body's pose in the file, which WriteBody sets to the
// joint's initial configuration, and puts the joint at the child frame's origin, which is
// where csim's joint frame J meets the child frame C (X_JC is a pure rotation about, or a
// translation along, the axis; the axis has the same coordinates in J and in C).
std::string JointElement(const multibody::Joint& joint) {
  using multibody::JointType;
  const char* type = nullptr;
  switch (joint.type) {
    case JointType::kFixed: return "";
    case JointType::kRevolute: type = "hinge"; break;
    case JointType::kPrismatic: type = "slide"; break;
    case JointType::kBall: type = "ball"; break;
    case JointType::kFree:
      if (joint.parent == -1) return "    <freejoint/>\n";
      throw std::invalid_argument("mjcf: joint '" + joint.name + "' is a free joint below a body");
    case JointType::kPlanar:
      throw std::invalid_argument("mjcf: joint '" + joint.name + "' is planar (not supported)");
  }
  if (joint.lower.size() > 0 || joint.upper.size() > 0)
    throw std::invalid_argument("mjcf: joint '" + joint.name + "' has limits (not supported)");
  if (joint.spring_stiffness.size() > 0 && (joint.spring_stiffness.array() != 0.0).any())
    throw std::invalid_argument("mjcf: joint '" + joint.name + "' has a spring (not supported)");
  std::string element = "    <joint name=\"" + joint.name + "\" type=\"" + type + "\" pos=\"0 0 0\"";
  if (joint.type != JointType::kBall) element += " axis=\"" + Vec(joint.axis) + "\"";
  const double damping = UniformJointValue(joint, joint.damping, "damping");
  if (damping != 0.0) element += " damping=\"" + Num(damping) + "\"";
  // MuJoCo's armature and frictionloss are csim's armature and friction (a force-bounded
  // velocity constraint, docs/design/actuators-and-constraints.md §3).
  const double armature = UniformJointValue(joint, joint.armature, "armature");
  if (armature != 0.0) element += " armature=\"" + Num(armature) + "\"";
  const double friction = UniformJointValue(joint, joint.friction, "friction");
  if (friction != 0.0) element += " frictionloss=\"" + Num(friction) + "\"";
  return element + "/>\n";
}

// Body b and, nested in it, its subtree. Its pose relative to its parent is the one at the
// scene's initial configuration (kin), so MuJoCo's zero joint coordinates start there.
void WriteBody(const multibody::Model& model, const multibody::Workspace& kin,
               const std::vector<std::vector<int>>& children, int b, int depth,
               std::ostringstream& out) {
  const multibody::Joint& joint = model.joints[b];
  const multibody::Body& body = model.bodies[b];
  if (joint.prescribed)
    throw std::invalid_argument("mjcf: joint '" + joint.name + "' is prescribed (not supported)");
  if (joint.v_initial.size() > 0 && joint.v_initial.norm() != 0.0)
    throw std::invalid_argument("mjcf: body '" + body.name + "' does not start at rest");
  if (joint.collide && joint.parent >= 0 && joint.type != multibody::JointType::kFree)
    throw std::invalid_argument("mjcf: joint '" + joint.name +
                                "' lets its bodies collide (MuJoCo filters parent and child)");
  const std::string indent(2 * depth, ' ');
  const Eigen::Matrix3d& I = body.inertia;
  out << indent << "  <body name=\"" << body.name << "\" " << PoseAttributes(kin.X_PB[b]) << ">\n";
  const std::string joint_element = JointElement(joint);
  if (!joint_element.empty()) out << indent << joint_element;
  out << indent << "    <inertial pos=\"" << Vec(body.com) << "\" mass=\"" << Num(body.mass)
      << "\" fullinertia=\"" << Num(I(0, 0)) << " " << Num(I(1, 1)) << " " << Num(I(2, 2)) << " "
      << Num(I(0, 1)) << " " << Num(I(0, 2)) << " " << Num(I(1, 2)) << "\"/>\n";
  WriteGeoms(model, body.geometry, indent, out);
  for (int c : children[b]) WriteBody(model, kin, children, c, depth + 1, out);
  out << indent << "  </body>\n";
}

}  // namespace

std::string WriteMjcf(const multibody::Model& model, const sim::Settings& settings,
                      const MjcfOptions& o) {
  multibody::Workspace kin = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, model.InitialQ(), model.InitialV(), kin);
  const int nconmax = o.contacts_per_body * std::max(1, model.num_bodies());
  std::ostringstream out;
  out << "<mujoco model=\"csim_bench\">\n"
      << "<compiler angle=\"radian\" inertiafromgeom=\"false\" boundmass=\"0\" boundinertia=\"0\"/>\n"
      << "<option timestep=\"" << Num(settings.time_step) << "\" gravity=\"" << Vec(model.gravity)
      << "\" integrator=\"Euler\" solver=\"Newton\" cone=\"elliptic\" jacobian=\"auto\" iterations=\""
      << o.iterations << "\" tolerance=\"" << Num(o.tolerance) << "\"/>\n"
      << "<size nconmax=\"" << nconmax << "\" njmax=\"" << 3 * nconmax << "\"/>\n"
      << "<default><geom condim=\"3\"/></default>\n"
      << "<worldbody>\n";
  WriteGeoms(model, model.world_geometry, "", out);
  std::vector<std::vector<int>> children(model.num_bodies());
  for (int b = 0; b < model.num_bodies(); ++b)
    if (model.parent[b] >= 0) children[model.parent[b]].push_back(b);
  for (int b = 0; b < model.num_bodies(); ++b)
    if (model.parent[b] < 0) WriteBody(model, kin, children, b, 0, out);
  out << "</worldbody>\n";
  // csim lets a body touch the world only through a free joint or a joint that says
  // `collide: true` (collision_filter.h); MuJoCo's parent filter spares the world.
  std::string excludes;
  for (int b = 0; b < model.num_bodies(); ++b) {
    const multibody::Joint& joint = model.joints[b];
    if (model.parent[b] < 0 && joint.type != multibody::JointType::kFree && !joint.collide)
      excludes += "  <exclude body1=\"world\" body2=\"" + model.bodies[b].name + "\"/>\n";
  }
  if (!excludes.empty()) out << "<contact>\n" << excludes << "</contact>\n";
  out << "</mujoco>\n";
  return out.str();
}

std::string MujocoSettingsLine(const sim::Settings& s, const MjcfOptions& o) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "MuJoCo 2.2.2: Newton solver, elliptic cones, condim 3, semi-implicit Euler, "
                "same dt as csim (first %g s), tolerance %g, max %d iterations, default solref (0.02 1) and solimp "
                "(0.9 0.95 0.001), margin 0, friction 1 (max rule), same masses, inertias, "
                "shapes and poses",
                s.time_step, o.tolerance, o.iterations);
  return buffer;
}

}  // namespace csim::bench
