#pragma once
// Box-box signed distance by the separating axis theorem (SAT): of the 15 candidate axes
// (3 face normals of each box, 9 cross products of their edges) the one with the largest
// separation, i.e. the least penetration, is the contact normal, and that separation is
// phi0. It is exact whenever the boxes overlap and for face contacts; for boxes apart
// across an edge or a corner it is a lower bound of the true distance, which the narrow
// phase then replaces by the exact distance. Face axes win round-off ties, so stacked boxes
// get a face normal and then a clipped 4-point manifold (contact_manifold.h) rather than
// an edge contact.
//
// Chosen over GJK/EPA for this pair because it is exact, cheap, and its normal is
// exactly a face normal, which is what the face-clipping manifold needs.

#include <limits>

#include <Eigen/Dense>

#include "engine/geometry/signed_distance.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// Box A (pose X_WA, full edge lengths size_a [m]) against box B. Deepest point: for a
/// face axis, the deepest corner of the other box; for an edge axis, the midpoint of the
/// closest points of the two support edges. When a face axis separates the boxes by
/// `cutoff` [m] or more, returns early with only phi0 (>= cutoff) and the normal set: a
/// caller that keeps pairs with phi0 < cutoff (the contact margin) loses nothing.
/// `exact` (optional) says whether phi0 is the true signed distance: always for overlapping
/// boxes; for boxes apart, when the winning axis's witness lies within both features (a
/// face axis: the other box's deepest corner projects inside the face; an edge axis: the
/// closest points are inside both edges). Else phi0 is a lower bound and the caller finds
/// the distance otherwise (narrow_phase.cc: GJK).
SignedDistanceResult BoxBox(const math::RigidTransform& X_WA, const Eigen::Vector3d& size_a,
                            const math::RigidTransform& X_WB, const Eigen::Vector3d& size_b,
                            double cutoff = std::numeric_limits<double>::infinity(),
                            bool* exact = nullptr);

}  // namespace csim::geometry
