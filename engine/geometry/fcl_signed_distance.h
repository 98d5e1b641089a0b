#pragma once
// Signed distance of a general pair of convex shapes through FCL 0.7 (libccd backend), for
// the pairs without a closed form here (cylinder, ellipsoid and mesh pairs, capsule-box).
//
// What FCL 0.7 (Debian build) gets right and wrong, found by probing each path:
//   * GJK distance of separated shapes (fcl::distance, unsigned) is accurate and robust:
//     distances and world-frame witness points to ~1e-9 m with a 1e-9 tolerance. Used.
//   * Signed distance in overlap (enable_signed_distance: libccd EPA) aborts the process
//     on an internal assertion (ComputeVisiblePatch / isOutsidePolytopeFace) for ordinary
//     configurations, e.g. a cylinder lying on a box or an ellipsoid on a sphere with a
//     tight tolerance; an assertion cannot be caught. Never used.
//   * The "indep" solver's EPA returns its normal in shape 1's frame instead of the world
//     and, for an ellipsoid against a sphere, a depth 20x too small. Never used.
//   * fcl::collide (libccd MPR) never crashed in our probes but its depth and normal are
//     those of the portal along the centre line, only approximately the least penetration.
//     Used as the starting guess below.
// So overlap is resolved with separated queries only: B is translated out along the
// current normal guess n_k by t (MPR depth plus a small clearance), GJK gives the distance
// d and the witness direction n_{k+1} of the separated pair, and the separation of the
// untranslated pair along n_{k+1} is exactly sep(n_{k+1}) = d - t n_k . n_{k+1}. Since the
// signed distance is the maximum of sep(n) over directions, every such value is a lower
// bound, reached at the fixed point n_{k+1} = n_k; a few iterations converge to it, and
// the largest value found is returned. Halfspaces never come here (analytic).

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/signed_distance.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// Signed distance of shapes A and B at poses X_WA, X_WB (geometry frames) through FCL.
/// Precondition: neither is a halfspace.
SignedDistanceResult FclSignedDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                                       const ContactShape& b, const math::RigidTransform& X_WB);

}  // namespace csim::geometry
