#include "bench/mjcf_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "engine/contact/collision_setup.h"
#include "engine/multibody/actuator_inputs.h"
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

// MuJoCo type and size (half extents, half lengths) of a csim geometry; a mesh is
// WriteGeoms's (an asset of its own).
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
  throw std::logic_error("mjcf: a mesh is written by WriteGeoms");
}

// The <asset> <mesh> element of a csim mesh (file or inline: the loader keeps both as the
// ConvexMesh of the geometry frame G), its vertices and triangles as they are. MuJoCo
// moves a mesh's vertices into the mesh's own inertial frame (centroid, principal axes of
// the enclosed volume) and composes the geom's pose with that frame's pose, so the vertices
// end where the geom pose X_BG puts them, as in csim (tests/bench/mjcf_writer_test.cc
// checks it). For contacts MuJoCo takes the convex hull of the vertices, as csim does.
std::string MeshAsset(const std::string& name, const geometry::ConvexMesh& mesh) {
  std::string vertex, face;
  for (const Eigen::Vector3d& v : mesh.vertices) vertex += (vertex.empty() ? "" : " ") + Vec(v);
  for (const Eigen::Vector3i& t : mesh.triangles)
    face += (face.empty() ? "" : " ") + std::to_string(t[0]) + " " + std::to_string(t[1]) + " " +
            std::to_string(t[2]);
  return "  <mesh name=\"" + name + "\" vertex=\"" + vertex + "\" face=\"" + face + "\"/>\n";
}

double Friction(const multibody::Model& model, const geometry::Geometry& g) {
  return g.material >= 0 ? model.materials[g.material].friction : geometry::Material{}.friction;
}

// The collision geometries, each line after `indent` (the nesting depth of their body);
// meshes add their <mesh> assets to *assets.
void WriteGeoms(const multibody::Model& model, const std::vector<geometry::Geometry>& geoms,
                const std::string& indent, std::string* assets, std::ostringstream& out) {
  for (const geometry::Geometry& g : geoms) {
    if (!g.collide) continue;
    std::string shape;
    if (g.type == ShapeType::kMesh) {
      const std::string name = "mesh" + std::to_string(std::count(assets->begin(), assets->end(), '\n'));
      *assets += MeshAsset(name, g.mesh);
      shape = "type=\"mesh\" mesh=\"" + name + "\"";
    } else {
      shape = ShapeAttributes(g);
    }
    out << indent << "    <geom " << shape << " " << PoseAttributes(g.X_BG) << " friction=\""
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
  std::string element = "    <joint name=\"" + joint.name + "\" type=\"" + type + "\" pos=\"0 0 0\"";
  if (joint.type != JointType::kBall) element += " axis=\"" + Vec(joint.axis) + "\"";
  // Limits and springs exist on scalar joints only (the loader's rule); MuJoCo measures
  // qpos from the initial coordinate (WriteBody), so its range and springref are csim's
  // values minus q_initial. MuJoCo's limit is its own soft constraint (default solref and
  // solimp, as for contacts); its spring is explicit in its Euler step, csim's implicit.
  const bool has_limits = joint.lower.size() > 0 || joint.upper.size() > 0;
  const bool has_spring =
      joint.spring_stiffness.size() > 0 && (joint.spring_stiffness.array() != 0.0).any();
  if ((has_limits || has_spring) && joint.nv != 1)
    throw std::invalid_argument("mjcf: joint '" + joint.name +
                                "' has limits or a spring on a joint that is not scalar");
  if (has_limits) {
    const double q0 = joint.q_initial[0];
    const double lower = joint.lower.size() > 0 ? joint.lower[0] : -INFINITY;
    const double upper = joint.upper.size() > 0 ? joint.upper[0] : INFINITY;
    if (!std::isfinite(lower) || !std::isfinite(upper))
      throw std::invalid_argument("mjcf: joint '" + joint.name +
                                  "' has a one-sided limit (MuJoCo's range is two-sided)");
    element += " limited=\"true\" range=\"" + Num(lower - q0) + " " + Num(upper - q0) + "\"";
  }
  if (has_spring)
    element += " stiffness=\"" + Num(joint.spring_stiffness[0]) + "\" springref=\"" +
               Num((joint.spring_rest.size() > 0 ? joint.spring_rest[0] : 0.0) - joint.q_initial[0]) +
               "\"";
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
               const std::vector<std::vector<int>>& children,
               const std::vector<std::string>& sites, int b, int depth, std::string* assets,
               std::ostringstream& out) {
  const multibody::Joint& joint = model.joints[b];
  const multibody::Body& body = model.bodies[b];
  if (joint.prescribed)
    throw std::invalid_argument("mjcf: joint '" + joint.name + "' is prescribed (not supported)");
  if (joint.v_initial.size() > 0 && joint.v_initial.norm() != 0.0)
    throw std::invalid_argument("mjcf: body '" + body.name + "' does not start at rest");
  const std::string indent(2 * depth, ' ');
  const Eigen::Matrix3d& I = body.inertia;
  out << indent << "  <body name=\"" << body.name << "\" " << PoseAttributes(kin.X_PB[b]) << ">\n";
  const std::string joint_element = JointElement(joint);
  if (!joint_element.empty()) out << indent << joint_element;
  out << indent << "    <inertial pos=\"" << Vec(body.com) << "\" mass=\"" << Num(body.mass)
      << "\" fullinertia=\"" << Num(I(0, 0)) << " " << Num(I(1, 1)) << " " << Num(I(2, 2)) << " "
      << Num(I(0, 1)) << " " << Num(I(0, 2)) << " " << Num(I(1, 2)) << "\"/>\n";
  WriteGeoms(model, body.geometry, indent, assets, out);
  if (!sites[b].empty()) out << indent << sites[b];
  for (int c : children[b]) WriteBody(model, kin, children, sites, c, depth + 1, assets, out);
  out << indent << "  </body>\n";
}


// MuJoCo's name of body b (-1 the world).
std::string BodyName(const multibody::Model& model, int b) {
  return b < 0 ? "world" : model.bodies[b].name;
}

// World pose of body b (-1 the world) in kin.
math::RigidTransform PoseOf(const multibody::Workspace& kin, int b) {
  return b < 0 ? math::RigidTransform{} : kin.X_WB[b];
}

// The one coordinate of a revolute or prismatic joint, checked.
const multibody::Joint& ScalarJoint(const multibody::Model& model, int j, const std::string& what) {
  const multibody::Joint& joint = model.joints[j];
  if (joint.type != multibody::JointType::kRevolute && joint.type != multibody::JointType::kPrismatic)
    throw std::invalid_argument("mjcf: " + what + " is on joint '" + joint.name +
                                "', which is not revolute or prismatic");
  return joint;
}

// The elements the scene's `constraints:` need: sites (per body, and the world's), spatial
// tendons, and equality constraints. MuJoCo measures every equality from the model's
// reference configuration qpos0 = 0, which the writer makes csim's initial one: a weld's
// relative pose and a connect's second anchor are taken there, and a joint or tendon
// equality's polynomial is of the differences from there. So a ball or weld must hold at
// csim's initial state (one violated there would be a different constraint in MuJoCo).
struct ConstraintElements {
  std::vector<std::string> body_sites;  // per body: <site> lines
  std::string world_sites, tendons, equalities;
};

ConstraintElements WriteConstraints(const multibody::Model& model, const multibody::Workspace& kin) {
  using multibody::HolonomicType;
  ConstraintElements e;
  e.body_sites.assign(model.num_bodies(), "");
  auto add_site = [&](int b, const std::string& name, const Eigen::Vector3d& p) {
    const std::string line = "    <site name=\"" + name + "\" pos=\"" + Vec(p) + "\"/>\n";
    (b < 0 ? e.world_sites : e.body_sites[b]) += line;
  };
  constexpr double kInitialGap = 1e-8;  // [m or rad] what still counts as satisfied at t = 0
  for (size_t i = 0; i < model.constraints.size(); ++i) {
    const multibody::HolonomicConstraint& c = model.constraints[i];
    const std::string what = "constraint '" + c.name + "'";
    switch (c.type) {
      case HolonomicType::kCoupler: {
        // csim: q_j = ratio q_f + offset. MuJoCo: (qpos_j - 0) = a0 + a1 (qpos_f - 0) with
        // qpos = q - q_initial, so a1 = ratio and a0 = ratio q_f0 + offset - q_j0.
        const multibody::Joint& j = ScalarJoint(model, c.joint, what);
        const multibody::Joint& f = ScalarJoint(model, c.follows, what);
        const double a0 = c.ratio * f.q_initial[0] + c.offset - j.q_initial[0];
        e.equalities += "  <joint name=\"" + c.name + "\" joint1=\"" + j.name + "\" joint2=\"" +
                        f.name + "\" polycoef=\"" + Num(a0) + " " + Num(c.ratio) + " 0 0 0\"/>\n";
        break;
      }
      case HolonomicType::kBall: {
        const Eigen::Vector3d p_WP = PoseOf(kin, c.body_a) * c.X_AP.p;
        const Eigen::Vector3d p_WQ = PoseOf(kin, c.body_b) * c.X_BQ.p;
        if ((p_WP - p_WQ).norm() > kInitialGap)
          throw std::invalid_argument("mjcf: " + what + " is violated at the initial state "
                                      "(MuJoCo's connect takes its anchors there)");
        e.equalities += "  <connect name=\"" + c.name + "\" body1=\"" + BodyName(model, c.body_a) +
                        "\" body2=\"" + BodyName(model, c.body_b) + "\" anchor=\"" +
                        Vec(c.X_AP.p) + "\"/>\n";
        break;
      }
      case HolonomicType::kWeld: {
        const math::RigidTransform X_WP = PoseOf(kin, c.body_a) * c.X_AP;
        const math::RigidTransform X_WQ = PoseOf(kin, c.body_b) * c.X_BQ;
        if ((X_WP.p - X_WQ.p).norm() > kInitialGap ||
            (X_WP.R - X_WQ.R).cwiseAbs().maxCoeff() > kInitialGap)
          throw std::invalid_argument("mjcf: " + what + " is violated at the initial state "
                                      "(MuJoCo's weld takes its relative pose there)");
        e.equalities += "  <weld name=\"" + c.name + "\" body1=\"" + BodyName(model, c.body_a) +
                        "\" body2=\"" + BodyName(model, c.body_b) + "\"/>\n";
        break;
      }
      case HolonomicType::kDistance: {
        // MuJoCo 2.2.2 refuses its own distance equality; a spatial tendon through a site
        // at P and one at Q has the length |PQ|. Rigid: a tendon equality holding that
        // length (a0 = length - its value at qpos0). Finite stiffness: the tendon's own
        // spring and damper (explicit in MuJoCo, in SAP's implicit row in csim).
        const std::string sp = c.name + "_P", sq = c.name + "_Q";
        add_site(c.body_a, sp, c.X_AP.p);
        add_site(c.body_b, sq, c.X_BQ.p);
        const double length0 =
            (PoseOf(kin, c.body_a) * c.X_AP.p - PoseOf(kin, c.body_b) * c.X_BQ.p).norm();
        std::string tendon = "  <spatial name=\"" + c.name + "\"";
        if (std::isfinite(c.stiffness)) {
          tendon += " stiffness=\"" + Num(c.stiffness) + "\" springlength=\"" + Num(c.length) + "\"";
          if (c.damping != 0.0) tendon += " damping=\"" + Num(c.damping) + "\"";
        } else {
          e.equalities += "  <tendon name=\"" + c.name + "_eq\" tendon1=\"" + c.name +
                          "\" polycoef=\"" + Num(c.length - length0) + " 0 0 0 0\"/>\n";
        }
        e.tendons += tendon + ">\n    <site site=\"" + sp + "\"/>\n    <site site=\"" + sq +
                     "\"/>\n  </spatial>\n";
        break;
      }
    }
  }
  return e;
}

// The <actuator> lines, in Model::actuators order (ControlsAt fills ctrl in that order).
// A PD actuator is a `general` actuator whose force gain*ctrl + bias is
// kp ctrl - kp qpos - kd qvel; with ctrl = ControlsAt's, that is csim's
// -kp (q - q_d) - kd (v - v_d) + u0, and forcerange clamps the sum to +-effort_limit as
// csim does. A velocity servo (kp = 0) has the gain kd instead. A force actuator is a motor.
std::string WriteActuators(const multibody::Model& model) {
  std::string out;
  for (const multibody::Actuator& a : model.actuators) {
    const multibody::Joint& joint = ScalarJoint(model, a.joint, "actuator '" + a.name + "'");
    std::string line = "  <general name=\"" + a.name + "\" joint=\"" + joint.name +
                       "\" ctrllimited=\"false\"";
    if (a.pd) {
      const double gain = a.kp > 0.0 ? a.kp : a.kd;
      line += " gaintype=\"fixed\" gainprm=\"" + Num(gain) + "\" biastype=\"affine\" biasprm=\"0 " +
              Num(-a.kp) + " " + Num(-a.kd) + "\"";
    } else {
      line += " gaintype=\"fixed\" gainprm=\"1\" biastype=\"none\"";
    }
    if (std::isfinite(a.effort_limit))
      line += " forcelimited=\"true\" forcerange=\"" + Num(-a.effort_limit) + " " +
              Num(a.effort_limit) + "\"";
    out += line + "/>\n";
  }
  return out;
}

// The <contact> <exclude> lines that make MuJoCo's collision filter csim's
// (contact::MakeCollisionFilter: same body, directly jointed bodies unless the joint says
// `collide: true`, ball and weld constraints unless they collide, the scene's
// `collision_filter:` pairs and groups, bodies both fixed to the world). MuJoCo's own
// filter works on welds (a body and everything fixed to it; weld 0 is the world's): it
// skips pairs in one weld, and pairs whose welds are parent and child unless one of them
// is the world's; `<exclude>` removes further body pairs. For every pair of bodies (the
// world included) that both have collision geometry: csim excludes it and MuJoCo would
// not, an exclude; MuJoCo excludes it and csim would not, refused (MuJoCo could only be
// given it back as an explicit pair, with its own parameters), unless the two are in one
// weld, where a contact between them has no effect on the motion (its Jacobian is zero).
std::string WriteExcludes(const multibody::Model& model) {
  const int nb = model.num_bodies();
  const geometry::CollisionFilter filter = contact::MakeCollisionFilter(model);
  // weld[b]: the body index of b's weld, -1 the world's (csim order is topological).
  std::vector<int> weld(nb);
  for (int b = 0; b < nb; ++b) {
    const multibody::Joint& j = model.joints[b];
    const bool fixed = j.type == multibody::JointType::kFixed && !j.prescribed;
    weld[b] = !fixed ? b : (model.parent[b] < 0 ? -1 : weld[model.parent[b]]);
  }
  auto weld_of = [&](int b) { return b < 0 ? -1 : weld[b]; };
  auto parent_weld = [&](int w) { return w < 0 ? -1 : weld_of(model.parent[w]); };
  auto has_geometry = [&](int b) {
    for (const geometry::Geometry& g : b < 0 ? model.world_geometry : model.bodies[b].geometry)
      if (g.collide) return true;
    return false;
  };
  std::string out;
  for (int a = -1; a < nb; ++a) {
    if (!has_geometry(a)) continue;
    for (int b = a + 1; b < nb; ++b) {
      if (!has_geometry(b)) continue;
      const int wa = weld_of(a), wb = weld_of(b);
      const bool same_weld = wa == wb;
      const bool mujoco = same_weld || (wa >= 0 && wb >= 0 && (wa == parent_weld(wb) || wb == parent_weld(wa)));
      const bool csim = filter.Excludes(a, b);
      if (csim && !mujoco)
        out += "  <exclude body1=\"" + BodyName(model, a) + "\" body2=\"" + BodyName(model, b) + "\"/>\n";
      if (!csim && mujoco && !same_weld)
        throw std::invalid_argument("mjcf: bodies '" + BodyName(model, a) + "' and '" +
                                    BodyName(model, b) +
                                    "' may collide in csim, but MuJoCo filters them (a joint "
                                    "with `collide: true`, or a body two joints apart across a "
                                    "fixed joint)");
    }
  }
  return out;
}

}  // namespace

std::string WriteMjcf(const multibody::Model& model, const sim::Settings& settings,
                      const MjcfOptions& o) {
  if (!model.loads.empty())
    throw std::invalid_argument("mjcf: external loads are not supported");
  multibody::Workspace kin = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, model.InitialQ(), model.InitialV(), kin);
  const int nconmax = o.contacts_per_body * std::max(1, model.num_bodies());
  std::ostringstream body;  // <worldbody>'s content; the meshes' assets go before it
  std::string assets;
  WriteGeoms(model, model.world_geometry, "", &assets, body);
  const ConstraintElements constraints = WriteConstraints(model, kin);
  body << constraints.world_sites;
  std::vector<std::vector<int>> children(model.num_bodies());
  for (int b = 0; b < model.num_bodies(); ++b)
    if (model.parent[b] >= 0) children[model.parent[b]].push_back(b);
  for (int b = 0; b < model.num_bodies(); ++b)
    if (model.parent[b] < 0)
      WriteBody(model, kin, children, constraints.body_sites, b, 0, &assets, body);
  std::ostringstream out;
  out << "<mujoco model=\"csim_bench\">\n"
      << "<compiler angle=\"radian\" inertiafromgeom=\"false\" boundmass=\"0\" boundinertia=\"0\"/>\n"
      << "<option timestep=\"" << Num(settings.time_step) << "\" gravity=\"" << Vec(model.gravity)
      << "\" integrator=\"Euler\" solver=\"Newton\" cone=\"elliptic\" jacobian=\"auto\" iterations=\""
      << o.iterations << "\" tolerance=\"" << Num(o.tolerance) << "\"/>\n"
      << "<size nconmax=\"" << nconmax << "\" njmax=\"" << 3 * nconmax << "\"/>\n"
      << "<default><geom condim=\"3\"/></default>\n";
  if (!assets.empty()) out << "<asset>\n" << assets << "</asset>\n";
  out << "<worldbody>\n" << body.str() << "</worldbody>\n";
  if (!constraints.tendons.empty()) out << "<tendon>\n" << constraints.tendons << "</tendon>\n";
  if (!constraints.equalities.empty())
    out << "<equality>\n" << constraints.equalities << "</equality>\n";
  const std::string actuators = WriteActuators(model);
  if (!actuators.empty()) out << "<actuator>\n" << actuators << "</actuator>\n";
  const std::string excludes = WriteExcludes(model);
  if (!excludes.empty()) out << "<contact>\n" << excludes << "</contact>\n";
  out << "</mujoco>\n";
  return out.str();
}

void ControlsAt(const multibody::Model& model, double t0, double dt, double* ctrl) {
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const multibody::Actuator& a = model.actuators[i];
    if (!a.pd) {  // csim's explicit force of the step's start (actuator_inputs.h)
      ctrl[i] = multibody::ForceActuatorEffort(model, a, t0);
      continue;
    }
    // Targets and feed-forward at the end of the step, where csim samples them
    // (contact/pd_actuators.h); qpos is measured from the joint's initial value.
    double q_d = 0.0, v_d = 0.0;
    multibody::ActuatorTarget(model, a, t0 + dt, &q_d, &v_d);
    const double u0 = multibody::ActuatorFeedforward(model, a, t0 + dt);
    const double q_ref = model.joints[a.joint].q_initial[a.coordinate];
    ctrl[i] = a.kp > 0.0 ? q_d - q_ref + (a.kd * v_d + u0) / a.kp : v_d + u0 / a.kd;
  }
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
