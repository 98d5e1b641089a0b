#include "engine/contact/initial_overlap.h"

#include <algorithm>

#include "engine/contact/collision_setup.h"
#include "engine/geometry/shape_width.h"

namespace csim::contact {

std::vector<DeepOverlap> FindDeepInitialOverlaps(const multibody::Model& model) {
  const std::vector<geometry::PointContact> contacts =
      FindContactsAt(model, 0.0, model.InitialQ(), 0.0);
  const std::vector<geometry::CollisionObjectSpec> specs = MakeCollisionSpecs(model);
  std::vector<DeepOverlap> out;
  // Contacts come sorted by pair, so each pair's points are consecutive.
  for (size_t i = 0; i < contacts.size();) {
    const geometry::PointContact& first = contacts[i];
    double depth = 0.0;
    for (; i < contacts.size() && contacts[i].geometry_a == first.geometry_a &&
           contacts[i].geometry_b == first.geometry_b;
         ++i)
      depth = std::max(depth, -contacts[i].phi0);
    const double width_a = geometry::CalcMinimumWidth(specs[first.geometry_a].geometry);
    const double width_b = geometry::CalcMinimumWidth(specs[first.geometry_b].geometry);
    const double width = std::min(width_a, width_b);
    if (!(depth > kDeepOverlapFraction * width)) continue;
    out.push_back({first.geometry_a, first.geometry_b, first.body_a, first.body_b, depth, width,
                   width_a <= width_b});
  }
  return out;
}

}  // namespace csim::contact
