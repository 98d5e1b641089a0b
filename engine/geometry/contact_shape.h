#pragma once
// The pose-independent contact data of one collision geometry, built once (CONTRIBUTING.md
// §1): the shape parameters and the polytope of a box or mesh, with the support function
// that the narrow phase's GJK and EPA work on.

#include <Eigen/Dense>

#include "engine/geometry/polytope.h"
#include "engine/geometry/shape.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// One collision geometry, ready for contact queries. Frame G is the geometry frame.
class ContactShape {
 public:
  /// Builds the shape from `geometry`; X_BG is not used here.
  explicit ContactShape(const Geometry& geometry);

  ShapeType type() const { return type_; }
  /// Shape parameters as in Geometry::size [m].
  const Eigen::Vector3d& size() const { return size_; }
  /// Radius of sphere, cylinder and capsule [m].
  double radius() const { return size_[0]; }
  /// Full length of cylinder and capsule along z [m] (capsule: between cap centres).
  double length() const { return size_[1]; }
  /// Vertices and merged faces of a box or mesh; empty for other shapes.
  const Polytope& polytope() const { return polytope_; }

  /// The point of the shape farthest along d_W (world, need not be unit), in world [m],
  /// given the pose X_WG. Ties resolve deterministically. Not defined for a halfspace.
  Eigen::Vector3d Support(const math::RigidTransform& X_WG, const Eigen::Vector3d& d_W) const;

  /// Tight world-axis-aligned bounds [lo, hi] [m] of the shape at pose X_WG. A halfspace
  /// gets infinite bounds.
  void CalcWorldBounds(const math::RigidTransform& X_WG, Eigen::Vector3d* lo,
                       Eigen::Vector3d* hi) const;

  /// World-axis-aligned bounds that contain CalcWorldBounds' and cost O(1) for every shape,
  /// for the broad phase, which runs them on every geometry every step: a mesh's are the
  /// world box around its box in its own frame (at most sqrt(3) times wider per axis than
  /// the tight ones, where the tight ones transform every vertex); the others' are tight.
  void CalcLooseWorldBounds(const math::RigidTransform& X_WG, Eigen::Vector3d* lo,
                            Eigen::Vector3d* hi) const;

 private:
  Eigen::Vector3d SupportLocal(const Eigen::Vector3d& d_G) const;

  ShapeType type_;
  Eigen::Vector3d size_;
  Polytope polytope_;
  /// A mesh's bounding box in its own frame: centre and half extents [m].
  Eigen::Vector3d mesh_center_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d mesh_half_ = Eigen::Vector3d::Zero();
};

}  // namespace csim::geometry
