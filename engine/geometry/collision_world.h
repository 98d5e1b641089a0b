#pragma once
// The collision world: every collision geometry of a scene with its contact shape, built
// once, a broad phase kept up to date with the poses, and the narrow phase that turns
// candidate pairs into point contacts (CONTRIBUTING.md §1: shapes and filters are built once).
//
// Built from plain data (a list of geometries with the body that carries each, plus a
// CollisionFilter), so this layer needs no multibody header: the contact layer converts a
// Model into specs (world_geometry with body -1, then every body's geometry) and builds the
// filter from the model's topology (collision_filter.h).
//
// Pipeline of FindContacts():
//   1. broad phase: each geometry's tight world AABB, inflated by margin / 2 per side, goes
//      to a sweep and prune (sweep_and_prune.h), which yields the candidate pairs whose
//      bounds are within the margin. Halfspaces have infinite bounds and stay out of the
//      sweep: each is tested against every other geometry's bounds.
//   2. filter: same body, directly jointed bodies without `collide: true`, and pairs whose
//      bodies are both fixed to the world are dropped (collision_filter.h).
//   3. the candidates are sorted by (geometry_a, geometry_b), which makes the output
//      independent of the broad phase's internal order, then run through the narrow phase
//      (narrow_phase.h) in that order.
// Alternative rejected: the narrow phase on the solver's threads (contiguous chunks of the
// sorted pairs, per-chunk buffers joined in order; bit-identical): on two threads the query
// ran slower (tools/run_threads_bench.sh), since moving poses and contacts between cores
// costs what the second thread saves on a query this short (results/threads.md times it).

#include <memory>
#include <vector>

#include "engine/geometry/collision_filter.h"
#include "engine/geometry/point_contact.h"
#include "engine/geometry/shape.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// One geometry of the world and the body that carries it.
struct CollisionObjectSpec {
  Geometry geometry;  ///< shape, X_BG in the body frame; collide == false: visual only
  int body = -1;      ///< body index, -1 for geometry welded to the world
};

/// Two geometries whose contact is a hydroelastic contact surface (shape.h
/// HasContactSurface): FindContacts lists them instead of running the narrow phase.
struct GeometryPair {
  int geometry_a = -1;  ///< spec index, geometry_a < geometry_b
  int geometry_b = -1;
  int body_a = -1;      ///< body carrying A; -1 for the world
  int body_b = -1;
};

/// What the last FindContacts() did, for profiling: how the collision time of a scene
/// splits into pairs (csim_bench prints these per step).
struct CollisionCounts {
  int narrow_phase_pairs = 0;  ///< candidate pairs the broad phase sent to the narrow phase
  int touching_pairs = 0;      ///< of those, pairs that gave at least one contact point
  /// Narrow-phase pairs of two shapes with extended features, halfspaces aside
  /// (narrow_phase.h, HasExtendedFeatures: box, mesh, cylinder, capsule): the costly case.
  int feature_pairs = 0;
};

/// Owns the contact shapes and the broad phase of one scene. Not copyable; movable.
class CollisionWorld {
 public:
  /// Builds the contact shapes and the broad phase once. Geometry index g in the output is
  /// the index of specs[g]; specs with collide == false are kept out entirely.
  /// Precondition: halfspaces only on the world or on bodies the filter treats as fixed.
  CollisionWorld(const std::vector<CollisionObjectSpec>& specs, CollisionFilter filter);
  ~CollisionWorld();
  CollisionWorld(CollisionWorld&&) noexcept;
  CollisionWorld& operator=(CollisionWorld&&) noexcept;
  CollisionWorld(const CollisionWorld&) = delete;
  CollisionWorld& operator=(const CollisionWorld&) = delete;

  /// Number of specs given at construction (colliding or not).
  int num_geometries() const;

  /// Sets every geometry's world pose X_WG = X_WB[body] * X_BG (world geometry: X_BG).
  /// @param X_WB  pose of every body in the world, indexed by body; its size must exceed
  ///              the largest body index of the specs.
  void UpdatePoses(const std::vector<math::RigidTransform>& X_WB);

  /// World pose X_WG of geometry g as of the last UpdatePoses() (X_BG before any).
  const math::RigidTransform& geometry_pose(int g) const;

  /// Every contact point with phi0 < margin (point_contact.h convention) between geometries
  /// the filter allows, at the poses of the last UpdatePoses(). `out` is cleared (its
  /// capacity reused) and filled sorted by (geometry_a, geometry_b) with geometry_a <
  /// geometry_b, then by the point order of the pair's manifold (deterministic).
  /// @param margin  contact_margin [m] >= 0.
  void FindContacts(double margin, std::vector<PointContact>* out);

  /// As above, with a per-body widening: a pair of bodies (a, b) uses the margin
  /// margin + extra_margin[a] + extra_margin[b] [m] (world geometry adds nothing), so a fast
  /// body reaches further without widening every other pair. extra_margin is indexed by
  /// body (size of the largest body index + 1), entries >= 0.
  void FindContacts(double margin, const std::vector<double>& extra_margin,
                    std::vector<PointContact>* out);

  /// The candidate pairs of the last FindContacts() that touch through a hydroelastic
  /// contact surface, sorted by (geometry_a, geometry_b): the broad phase and the filter
  /// passed them (a compliant geometry's bounds widened by its hydroelastic margin), and
  /// the caller computes their surfaces (engine/hydroelastic/). No point contact is made
  /// for them.
  const std::vector<GeometryPair>& hydroelastic_pairs() const;

  /// The pair counts of the last FindContacts() (zeros before the first).
  const CollisionCounts& counts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace csim::geometry
