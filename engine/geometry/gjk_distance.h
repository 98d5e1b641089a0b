#pragma once
// Distance of two convex shapes apart by the Gilbert-Johnson-Keerthi algorithm (GJK) on
// their supports, with a certificate: every iteration brackets the distance.
//
// With M = A - B (the points a - b), the distance is that of the origin to M. GJK keeps a
// simplex of support points of M and v, the point of the simplex nearest the origin:
// |v| is the distance of two points of the shapes, an upper bound, and the support point
// w of M along -v gives the separation along n = -v / |v| (from A into B), w . v / |v|, a
// lower bound (the plane through w normal to v has all of M on its far side). The next
// simplex is the smallest face of simplex + w nearest the origin, found by trying each
// face (at most 15), which is simple and robust for four points. The search stops when the
// bounds meet within the tolerance, or when the simplex encloses the origin (overlap).
//
// Chosen over FCL's GJK, whose distance for nearly touching shapes can come with a wrong
// direction, and which gives no bound to check against.

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/signed_distance.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// What GJK found for a pair of shapes.
struct GjkResult {
  bool overlapping = false;  ///< the simplex enclosed the origin (or came within round-off)
  double upper = 0.0;        ///< |v|: a distance between points of the shapes [m]
  double lower = 0.0;        ///< separation along nhat_AB_W, <= the distance [m]
  Eigen::Vector3d nhat_AB_W = Eigen::Vector3d::UnitZ();  ///< -v / |v|, from A into B
  Eigen::Vector3d p_A = Eigen::Vector3d::Zero();  ///< A's point of the upper bound [m]
  Eigen::Vector3d p_B = Eigen::Vector3d::Zero();  ///< B's point of the upper bound [m]
};

/// Runs GJK on shapes A and B at poses X_WA, X_WB until upper - lower <= tolerance [m] or
/// the shapes are found to overlap. Precondition: neither shape is a halfspace.
GjkResult CalcGjkDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                          const ContactShape& b, const math::RigidTransform& X_WB,
                          double tolerance);

}  // namespace csim::geometry
