#pragma once
// Penetration depth of two overlapping convex shapes by the expanding polytope algorithm
// (EPA) on their supports, for the pairs without a closed form (cylinder, ellipsoid and
// mesh pairs, capsule-box). FCL's own EPA (libccd) aborts on internal assertions for
// ordinary configurations and a translate-and-measure refinement of its MPR guess stalls
// in local optima, so csim runs its own.
//
// Method. With M = A - B (the points a - b), a unit direction n (from A into B) separates
// the shapes by sep(n) = -h_M(n), h_M the support function of M, and the signed distance
// is the maximum of sep(n), i.e. minus the distance from the origin to the boundary of M.
// EPA grows a polytope P inside M from support points: start from a tetrahedron, then
// repeatedly take the face of P nearest the origin (normal n_f, offset d_f) and add the
// support point of M along n_f, until that point lies within a tolerance of the face.
// Faces nearer the origin than the boundary of M are what P lacks, so the nearest face
// always moves outwards and the search is global: no local optimum traps it. At the end
// d_f <= depth <= h_M(n_f), and the result reports sep(n_f) = -h_M(n_f): a true
// separation along n_f, at most the tolerance deeper than the exact one. A starting
// tetrahedron that misses the origin is expanded by the same rule (its faces facing away
// from the origin have d_f < 0 and come first). The polytope is kept as triangles with
// their neighbours; the faces a new point sees are found by a flood fill from the face it
// was sought for, so the hole they leave is one disk and its rim one loop.
//
// Where M's boundary is curved, the nearest face's normal is only as good as the square
// root of its gap, and smooth pairs (two ellipsoids, a capsule on a mesh) can exhaust the
// storage first. Two local steps then sharpen the separation from EPA's normal: BFGS on
// the sphere of directions (smooth optima) and the fixed point of "move B out along n,
// take GJK's direction" (optima on a ridge of sep, a cylinder's side or a box's edge).
// They give true separations, lower bounds; EPA's nearest face gives the upper bound.
//
// Fixed-size storage (kMaxVertices, kMaxFaces): no allocation in the step.

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/signed_distance.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// The signed distance of A and B (poses X_WA, X_WB) where they overlap: the separation
/// along the best normal found, from A into B, with p_WC midway between the witness points.
/// `scale` [m] is the smaller shape's size (a tetrahedron flatter than 1e-12 scale^3 counts
/// as flat); `tolerance` [m] the support gap at which EPA stops. Precondition: neither
/// shape is a halfspace.
/// @returns true if the shapes overlap (the polytope encloses the origin): phi0 is then a
///          lower bound and *upper an upper bound of the signed distance, within
///          `tolerance` of each other unless the storage ran out on a hard pair. False if
///          they are apart (phi0 is a separation along some direction, a lower bound) or M
///          is flat (degenerate shapes: phi0 = 0 along the centre line).
bool CalcPenetration(const ContactShape& a, const math::RigidTransform& X_WA,
                     const ContactShape& b, const math::RigidTransform& X_WB, double scale,
                     double tolerance, SignedDistanceResult* result, double* upper);

}  // namespace csim::geometry
