#pragma once
// An independent signed distance for the property tests of the narrow phase, written from
// the shapes' definitions and sharing no code with engine/geometry.
//
// For convex A and B, phi = max over unit n of sep(n), with
//   sep(n) = min_{b in B} n.b - max_{a in A} n.a = -h_B(-n) - h_A(n)   (h: support function).
// For shapes apart phi is their distance; in overlap it is minus the penetration depth, the
// length of the shortest translation that separates them. Every sep(n) is a lower bound of
// phi, so the maximum over a set of directions that contains the optimal one is exact:
//
//   * Polytope cores. A box or mesh is a polytope; a sphere is a point and a capsule a
//     segment inflated by the radius (inflation lowers sep(n) by the radius for every n).
//     The optimal direction of two polytopes is normal to the face, edge or vertex of their
//     Minkowski difference nearest the origin: a face normal of either, the cross product
//     of an edge of each, the direction between two vertices, or from a vertex to its
//     closest point on an edge of the other. That finite set is enumerated: exact.
//   * A halfspace has finite support only along its normal n_H: phi = -h_B(-n_H) - n_H.p_H.
//   * Cylinders and ellipsoids: numeric. The candidates above (with a cylinder's or an
//     ellipsoid's axes as its edges) and every local maximum of sep on a dense grid of
//     directions seed a pattern search on the sphere, plus a search along every great
//     circle normal to a core edge (where the support has a kink). For a pair apart, sep is
//     concave on the unit ball, so the search converges to the maximum; in overlap, where
//     sep can have several local maxima, starting from each of the grid's makes it global.

#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "engine/geometry/shape.h"
#include "engine/math/spatial.h"

namespace csim::geometry::test {

/// A shape at a pose, as the reference sees it (world frame throughout).
struct ReferenceShape {
  ShapeType type = ShapeType::kSphere;
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();  ///< orientation of the geometry frame
  Eigen::Vector3d p = Eigen::Vector3d::Zero();      ///< origin of the geometry frame [m]
  Eigen::Vector3d size = Eigen::Vector3d::Zero();   ///< Geometry::size [m]
  /// The core (world) [m]: a box's or mesh's vertices, a sphere's centre, a capsule's or
  /// cylinder's axis segment, an ellipsoid's centre and semi-axis ends (seeds only).
  std::vector<Eigen::Vector3d> vertices;
  std::vector<std::pair<int, int>> edges;          ///< core edges, indices into vertices
  std::vector<Eigen::Vector3d> face_normals;       ///< outward unit normals (world)
  double bounding_radius = 0.0;  ///< radius of a ball about p containing the shape [m]

  /// h(n) = max over the shape of n.x, for a unit n (not for a halfspace).
  double Support(const Eigen::Vector3d& n) const;
};

ReferenceShape MakeReferenceShape(const Geometry& g, const math::RigidTransform& X_WG);

struct ReferenceDistance {
  double phi = 0.0;                                  ///< signed distance [m]
  Eigen::Vector3d nhat = Eigen::Vector3d::UnitZ();   ///< optimal direction, A into B
  bool exact = false;  ///< true: enumerated or closed form; false: numeric search
};

/// The signed distance of A and B. Two halfspaces are not a pair.
ReferenceDistance CalcReferenceSignedDistance(const ReferenceShape& a, const ReferenceShape& b);

/// sep(n) = -h_B(-n) - h_A(n): a lower bound of the signed distance for every unit n.
double Separation(const ReferenceShape& a, const ReferenceShape& b, const Eigen::Vector3d& n);

}  // namespace csim::geometry::test
