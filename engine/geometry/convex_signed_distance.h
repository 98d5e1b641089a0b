#pragma once
// Signed distance of a general pair of convex shapes, for the pairs without a closed form
// (cylinder, ellipsoid and mesh pairs, capsule-box, boxes apart across an edge): GJK
// (gjk_distance.h) when the shapes are apart, EPA (penetration_depth.h) when they overlap
// or touch. Both work on the shapes' support functions and bracket the answer, so the
// result is within kConvexSignedDistanceTolerance of the true signed distance.

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/signed_distance.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// Accuracy of ConvexSignedDistance relative to the smaller shape's size (its largest
/// world-aligned extent): GJK's bracket and EPA's support gap at convergence.
constexpr double kConvexSignedDistanceTolerance = 1e-7;

/// Signed distance of shapes A and B at poses X_WA, X_WB (geometry frames).
/// Precondition: neither is a halfspace.
SignedDistanceResult ConvexSignedDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                                          const ContactShape& b, const math::RigidTransform& X_WB);

}  // namespace csim::geometry
