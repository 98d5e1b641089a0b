#pragma once
// Which pairs of bodies may touch (scene-format.md "Shapes"): geometries of one body never
// collide with each other; bodies joined directly by a joint do not collide unless the
// joint says `collide: true`, and neither do bodies joined by a ball or weld constraint
// unless it says `collide: true` (passed as extra pairs); two objects that are both fixed to the world (world geometry
// and bodies welded to it through chains of fixed joints) never collide, since neither can
// move. Visual-only geometry (collide: false) never enters the CollisionWorld at all.
//
// The filter works on body indices (-1 for the world) and is built once from plain
// topology arrays, so the geometry layer needs no multibody header: the caller converts
// its Model into parent / joint-collide / fixed-joint arrays.

#include <utility>
#include <vector>

namespace csim::geometry {

/// Body pairs that must never produce contacts. Immutable after construction.
class CollisionFilter {
 public:
  /// A filter that excludes only same-body pairs and world-world pairs.
  CollisionFilter() = default;

  /// Builds the filter of a forest of nb bodies.
  /// @param parent           (nb) parent[i] is the parent body of body i, -1 the world.
  /// @param joint_collide    (nb) true if body i may collide with its parent (the inboard
  ///                         joint says `collide: true`). Callers should also pass true for
  ///                         free joints: a free joint constrains nothing, so a free body
  ///                         must keep colliding with the ground (scene-format.md gives
  ///                         every body without a joint a free joint to the world).
  /// @param welded_to_world  (nb) true if body i cannot move relative to the world; see
  ///                         WeldedToWorld().
  /// @param extra_excluded   further body pairs (-1: the world) that never collide, such as
  ///                         the bodies of a ball or weld constraint.
  CollisionFilter(const std::vector<int>& parent, const std::vector<bool>& joint_collide,
                  const std::vector<bool>& welded_to_world,
                  const std::vector<std::pair<int, int>>& extra_excluded = {});

  /// True if geometries on body_a and body_b (either may be -1, the world) never collide.
  bool Excludes(int body_a, int body_b) const;

  /// True if the body (-1: world) is fixed to the world.
  bool IsFixed(int body) const;

  /// The explicitly excluded pairs (first < second, sorted), for inspection and tests.
  const std::vector<std::pair<int, int>>& excluded_pairs() const { return excluded_; }

 private:
  std::vector<std::pair<int, int>> excluded_;  // parent-child and extra pairs, (min, max), sorted
  std::vector<bool> fixed_;                    // (nb) welded to the world
};

/// Bodies welded to the world: body i is welded if its inboard joint is fixed (and not
/// moving, i.e. `joint_fixed[i]` is true only for fixed, non-prescribed joints) and its
/// parent is the world or itself welded. Requires parent[i] < i (topological order).
std::vector<bool> WeldedToWorld(const std::vector<int>& parent,
                                const std::vector<bool>& joint_fixed);

}  // namespace csim::geometry
