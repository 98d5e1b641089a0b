#pragma once
// Signed distance of a general pair of convex shapes through FCL 0.7 (libccd backend), for
// the pairs without a closed form here (cylinder, ellipsoid and mesh pairs, capsule-box).
//
// What FCL 0.7 gets right and wrong, and what we do about it:
//   * fcl::collide() computes penetration with MPR, whose depth and normal are only
//     approximate; fcl::distance() with enable_signed_distance runs GJK and, in overlap,
//     EPA, which converge to the true signed distance and witness points. We use the
//     latter, with a tight tolerance.
//   * The witness points come back in the world frame. Apart, the normal is p_B - p_A;
//     in overlap it is p_A - p_B (A's witness is the point of A deepest inside B).
//   * When the witnesses nearly coincide (touching, |phi| ~ 0) their difference has no
//     direction: we fall back to MPR's normal from fcl::collide(), and if that also fails,
//     to the direction between the shapes' centres.
//   * EPA may throw (FailedAtThisConfiguration) on degenerate polytopes: we catch it and
//     use fcl::collide() (MPR) in overlap or the unsigned distance apart.
//   * Halfspaces have no libccd support function: never passed here (handled analytically).

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/signed_distance.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// Signed distance of shapes A and B at poses X_WA, X_WB (geometry frames) through FCL.
/// Precondition: neither is a halfspace.
SignedDistanceResult FclSignedDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                                       const ContactShape& b, const math::RigidTransform& X_WB);

}  // namespace csim::geometry
