#pragma once
// Converts a Model into the geometry layer's plain inputs, once: one collision spec per
// geometry (world geometry first, then each body's, in body order) and the filter built
// from the forest's topology.

#include <string>
#include <vector>

#include "engine/geometry/collision_world.h"
#include "engine/multibody/model.h"

namespace csim::contact {

/// Specs in the order world_geometry, bodies[0].geometry, bodies[1].geometry, ...
std::vector<geometry::CollisionObjectSpec> MakeCollisionSpecs(const multibody::Model& model);

/// The filter of scene-format.md: same body, directly jointed bodies unless the joint
/// says collide (free joints always collide with the world), pairs both fixed to the world.
geometry::CollisionFilter MakeCollisionFilter(const multibody::Model& model);

/// Bodies with collision geometry whose inboard joint to the world (not free) lacks
/// `collide: true`, while the world has collision geometry: by the filter rule they never
/// touch the world's geometry (the ground), which is easy to overlook in a scene.
std::vector<int> BodiesFilteredFromWorld(const multibody::Model& model);

/// Pairs of colliding geometries the filter allows of which at least one has a
/// `hydroelastic:` block but which keep point contact (geometry::HasContactSurface false:
/// rigid against rigid, hydroelastic against plain, two halfspaces), as "A (body) and B
/// (body): reason" lines for `csim check`. O(geometries^2), for inspection only.
std::vector<std::string> HydroelasticFallbackPairs(const multibody::Model& model);

/// The collision world of `model`.
geometry::CollisionWorld MakeCollisionWorld(const multibody::Model& model);

/// Point contacts closer than `margin` [m] at the configuration q (nq) at time t [s]
/// (prescribed joints at t). For inspection (`csim check`); builds its own world.
std::vector<geometry::PointContact> FindContactsAt(const multibody::Model& model, double t,
                                                   const Eigen::VectorXd& q, double margin);

}  // namespace csim::contact
