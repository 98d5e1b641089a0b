#include "engine/contact/collision_setup.h"

#include "engine/multibody/kinematics.h"

namespace csim::contact {

using multibody::JointType;

std::vector<geometry::CollisionObjectSpec> MakeCollisionSpecs(const multibody::Model& model) {
  std::vector<geometry::CollisionObjectSpec> specs;
  for (const geometry::Geometry& g : model.world_geometry) specs.push_back({g, -1});
  for (int b = 0; b < model.num_bodies(); ++b)
    for (const geometry::Geometry& g : model.bodies[b].geometry) specs.push_back({g, b});
  return specs;
}

geometry::CollisionFilter MakeCollisionFilter(const multibody::Model& model) {
  const int nb = model.num_bodies();
  std::vector<bool> joint_collide(nb), joint_fixed(nb);
  for (int i = 0; i < nb; ++i) {
    const multibody::Joint& j = model.joints[i];
    // A free joint constrains nothing: its body keeps colliding with the world.
    joint_collide[i] = j.collide || j.type == JointType::kFree;
    joint_fixed[i] = j.type == JointType::kFixed && !j.prescribed;
  }
  // Bodies joined by a ball or weld constraint touch where they are joined.
  std::vector<std::pair<int, int>> constrained;
  for (const multibody::HolonomicConstraint& c : model.constraints)
    if ((c.type == multibody::HolonomicType::kBall || c.type == multibody::HolonomicType::kWeld) &&
        !c.collide)
      constrained.emplace_back(c.body_a, c.body_b);
  constrained.insert(constrained.end(), model.excluded_collisions.begin(),
                     model.excluded_collisions.end());
  return geometry::CollisionFilter(model.parent, joint_collide,
                                   geometry::WeldedToWorld(model.parent, joint_fixed), constrained);
}

namespace {
bool HasCollisionGeometry(const std::vector<geometry::Geometry>& geometry) {
  for (const geometry::Geometry& g : geometry)
    if (g.collide) return true;
  return false;
}
}  // namespace

std::vector<int> BodiesFilteredFromWorld(const multibody::Model& model) {
  std::vector<int> bodies;
  if (!HasCollisionGeometry(model.world_geometry)) return bodies;
  for (int b = 0; b < model.num_bodies(); ++b) {
    const multibody::Joint& j = model.joints[b];
    if (j.parent < 0 && j.type != JointType::kFree && !j.collide &&
        HasCollisionGeometry(model.bodies[b].geometry))
      bodies.push_back(b);
  }
  return bodies;
}

std::vector<std::string> HydroelasticFallbackPairs(const multibody::Model& model) {
  using geometry::Compliance;
  const std::vector<geometry::CollisionObjectSpec> specs = MakeCollisionSpecs(model);
  const geometry::CollisionFilter filter = MakeCollisionFilter(model);
  const auto name = [&](const geometry::CollisionObjectSpec& s) {
    return std::string(geometry::ShapeTypeName(s.geometry.type)) + " of " +
           (s.body < 0 ? std::string("the world") : "'" + model.bodies[s.body].name + "'");
  };
  std::vector<std::string> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (size_t j = i + 1; j < specs.size(); ++j) {
      const geometry::Geometry& a = specs[i].geometry;
      const geometry::Geometry& b = specs[j].geometry;
      if (!a.collide || !b.collide || specs[i].body == specs[j].body) continue;
      if (a.hydroelastic.compliance == Compliance::kNone &&
          b.hydroelastic.compliance == Compliance::kNone)
        continue;
      if (filter.Excludes(specs[i].body, specs[j].body)) continue;
      if (geometry::HasContactSurface(a.hydroelastic, a.type, b.hydroelastic, b.type)) continue;
      const char* reason =
          a.hydroelastic.compliance == Compliance::kNone ||
                  b.hydroelastic.compliance == Compliance::kNone
              ? "only one side is hydroelastic"
          : a.type == geometry::ShapeType::kHalfspace && b.type == geometry::ShapeType::kHalfspace
              ? "two halfspaces"
              : "both rigid";
      out.push_back(name(specs[i]) + " and " + name(specs[j]) + ": " + reason);
    }
  }
  return out;
}

geometry::CollisionWorld MakeCollisionWorld(const multibody::Model& model) {
  return geometry::CollisionWorld(MakeCollisionSpecs(model), MakeCollisionFilter(model));
}

std::vector<geometry::PointContact> FindContactsAt(const multibody::Model& model, double t,
                                                   const Eigen::VectorXd& q, double margin) {
  multibody::Workspace ws = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, t, q, Eigen::VectorXd::Zero(model.nv), ws);
  geometry::CollisionWorld world = MakeCollisionWorld(model);
  world.UpdatePoses(ws.X_WB);
  std::vector<geometry::PointContact> contacts;
  world.FindContacts(margin, &contacts);
  return contacts;
}

}  // namespace csim::contact
