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

void WriteGeoms(const multibody::Model& model, const std::vector<geometry::Geometry>& geoms,
                std::ostringstream& out) {
  for (const geometry::Geometry& g : geoms) {
    if (!g.collide) continue;
    out << "    <geom " << ShapeAttributes(g) << " " << PoseAttributes(g.X_BG) << " friction=\""
        << Num(Friction(model, g)) << " 0.005 0.0001\"/>\n";
  }
}

void WriteBody(const multibody::Model& model, const multibody::Workspace& kin, int b,
               std::ostringstream& out) {
  const multibody::Joint& joint = model.joints[b];
  if (joint.type != multibody::JointType::kFree || joint.parent != -1 || joint.prescribed)
    throw std::invalid_argument("mjcf: body '" + model.bodies[b].name +
                                "' is not a free body on the world");
  if (joint.v_initial.size() > 0 && joint.v_initial.norm() != 0.0)
    throw std::invalid_argument("mjcf: body '" + model.bodies[b].name + "' does not start at rest");
  const multibody::Body& body = model.bodies[b];
  const Eigen::Matrix3d& I = body.inertia;
  out << "  <body name=\"" << body.name << "\" " << PoseAttributes(kin.X_WB[b]) << ">\n"
      << "    <freejoint/>\n"
      << "    <inertial pos=\"" << Vec(body.com) << "\" mass=\"" << Num(body.mass)
      << "\" fullinertia=\"" << Num(I(0, 0)) << " " << Num(I(1, 1)) << " " << Num(I(2, 2)) << " "
      << Num(I(0, 1)) << " " << Num(I(0, 2)) << " " << Num(I(1, 2)) << "\"/>\n";
  WriteGeoms(model, body.geometry, out);
  out << "  </body>\n";
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
  WriteGeoms(model, model.world_geometry, out);
  for (int b = 0; b < model.num_bodies(); ++b) WriteBody(model, kin, b, out);
  out << "</worldbody>\n</mujoco>\n";
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
