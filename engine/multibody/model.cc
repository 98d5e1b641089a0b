#include "engine/multibody/model.h"

namespace csim::multibody {

const char* JointTypeName(JointType type) {
  switch (type) {
    case JointType::kFixed: return "fixed";
    case JointType::kRevolute: return "revolute";
    case JointType::kPrismatic: return "prismatic";
    case JointType::kPlanar: return "planar";
    case JointType::kBall: return "ball";
    case JointType::kFree: return "free";
  }
  return "unknown";
}

int JointNq(JointType type) {
  switch (type) {
    case JointType::kFixed: return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic: return 1;
    case JointType::kPlanar: return 3;
    case JointType::kBall: return 4;
    case JointType::kFree: return 7;
  }
  return 0;
}

int JointNv(JointType type) {
  switch (type) {
    case JointType::kFixed: return 0;
    case JointType::kRevolute:
    case JointType::kPrismatic: return 1;
    case JointType::kPlanar:
    case JointType::kBall: return 3;
    case JointType::kFree: return 6;
  }
  return 0;
}

int Model::FindBody(const std::string& name) const {
  for (int i = 0; i < num_bodies(); ++i)
    if (bodies[i].name == name) return i;
  return -1;
}

int Model::FindJoint(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(joints.size()); ++i)
    if (joints[i].name == name) return i;
  return -1;
}

int Model::FindFrame(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(frames.size()); ++i)
    if (frames[i].name == name) return i;
  return -1;
}

int Model::FindTrajectory(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(trajectories.size()); ++i)
    if (trajectories[i].name == name) return i;
  return -1;
}

Eigen::VectorXd Model::InitialQ() const {
  Eigen::VectorXd q(nq);
  for (const Joint& j : joints)
    if (j.q_start >= 0) q.segment(j.q_start, j.nq) = j.q_initial;
  return q;
}

Eigen::VectorXd Model::InitialV() const {
  Eigen::VectorXd v(nv);
  for (const Joint& j : joints)
    if (j.v_start >= 0) v.segment(j.v_start, j.nv) = j.v_initial;
  return v;
}

bool Model::HasHydroelasticGeometry() const {
  const auto any = [](const std::vector<geometry::Geometry>& list) {
    for (const geometry::Geometry& g : list)
      if (g.collide && g.hydroelastic.compliance != geometry::Compliance::kNone) return true;
    return false;
  };
  if (any(world_geometry)) return true;
  for (const Body& b : bodies)
    if (any(b.geometry)) return true;
  return false;
}

bool Model::HasJointFriction() const {
  for (const Joint& joint : joints)
    if ((joint.friction.array() > 0.0).any()) return true;
  return false;
}

void AssignCoordinates(Model& model) {
  model.nq = model.nv = 0;
  model.parent.resize(model.joints.size());
  for (size_t i = 0; i < model.joints.size(); ++i) {
    Joint& j = model.joints[i];
    j.nq = JointNq(j.type);
    j.nv = JointNv(j.type);
    model.parent[i] = j.parent;
    if (j.prescribed || j.nv == 0) {
      j.q_start = j.v_start = -1;
      continue;
    }
    j.q_start = model.nq;
    j.v_start = model.nv;
    model.nq += j.nq;
    model.nv += j.nv;
  }
}

}  // namespace csim::multibody
