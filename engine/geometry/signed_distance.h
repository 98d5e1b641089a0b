#pragma once
// Closed-form signed distances of the pairs whose formulas are short and exact: spheres,
// capsules (spheres swept along a segment) and sphere-box. Each returns the single
// deepest point of the pair (or the closest points when apart) in the convention of
// point_contact.h: phi0 < 0 in overlap, nhat_AB_W from A into B, p_WC midway between the
// witness points. Degenerate cases (coincident centres, intersecting axes) pick a
// deterministic normal, documented per function.

#include <Eigen/Dense>

#include "engine/math/spatial.h"

namespace csim::geometry {

/// The deepest (or closest) point of a pair of shapes A, B.
struct SignedDistanceResult {
  double phi0 = 0.0;                                     ///< [m], < 0 overlap
  Eigen::Vector3d nhat_AB_W = Eigen::Vector3d::UnitZ();  ///< unit, from A into B
  Eigen::Vector3d p_WC = Eigen::Vector3d::Zero();        ///< midpoint of the witnesses [m]
};

/// Spheres of radii r_a, r_b [m] centred at p_WA, p_WB. Coincident centres: normal +z.
SignedDistanceResult SphereSphere(const Eigen::Vector3d& p_WA, double r_a,
                                  const Eigen::Vector3d& p_WB, double r_b);

/// Sphere A (centre p_WA, radius r_a) against box B (pose X_WB, full edge lengths size_b).
/// A centre inside the box exits through the nearest face (ties: lowest axis, + side).
SignedDistanceResult SphereBox(const Eigen::Vector3d& p_WA, double r_a,
                               const math::RigidTransform& X_WB,
                               const Eigen::Vector3d& size_b);

/// Sphere A against capsule B (pose X_WB, axis z, radius r_b, cap-centre distance len_b).
/// A centre on B's axis: normal along B's x axis.
SignedDistanceResult SphereCapsule(const Eigen::Vector3d& p_WA, double r_a,
                                   const math::RigidTransform& X_WB, double r_b, double len_b);

/// Capsule A against capsule B (poses X_WA, X_WB; radii r; cap-centre distances len).
/// Intersecting axes: normal along the cross product of the axes, oriented from A to B.
SignedDistanceResult CapsuleCapsule(const math::RigidTransform& X_WA, double r_a, double len_a,
                                    const math::RigidTransform& X_WB, double r_b, double len_b);

/// Closest points of segments [p0, p1] and [q0, q1]: writes the parameters s, t in [0, 1]
/// of the points p0 + s (p1 - p0) and q0 + t (q1 - q0). Parallel segments: one closest
/// pair, found from s = 0 (deterministic).
void ClosestPointsOnSegments(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                             const Eigen::Vector3d& q0, const Eigen::Vector3d& q1, double* s,
                             double* t);

}  // namespace csim::geometry
