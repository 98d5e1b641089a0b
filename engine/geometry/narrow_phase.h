#pragma once
// Narrow phase: the contact points of one pair of collision geometries.
//
// Two steps per pair. (1) The deepest point: closed forms where short and exact
// (signed_distance.h: sphere-sphere, sphere-box, sphere-capsule, capsule-capsule;
// box_box.h: SAT), GJK or EPA otherwise (convex_signed_distance.h). A pair whose signed
// distance is not below the margin yields nothing. (2) The manifold: when both shapes can
// present a segment or a face (box, mesh, cylinder, capsule), their support features
// along the normal are clipped against each other (contact_manifold.h), giving up to
// ContactManifold::kMaxPoints points that each carry their own phi0; otherwise, or if
// clipping yields nothing, the single deepest point is the contact.
//
// Halfspaces (always welded to the world) are handled apart and exactly: the other
// shape's support feature against the plane (a sphere's lowest point, a box's bottom face
// corners, a cylinder's rim points or side line ends, a capsule's two cap points, a mesh's
// bottom face vertices, an ellipsoid's lowest point).
//
// Symmetry: every pair is computed in a canonical order (shape type, then position) and
// the normals flipped if needed, so (A, B) and (B, A) give the same points and gaps with
// opposite normals, bit for bit.

#include <vector>

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/point_contact.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// Appends to `out` the contact points of geometry A (pose X_WA of its frame in world)
/// and geometry B whose signed distance is below `margin` [m], in the convention of
/// point_contact.h with A first. The index fields (geometry_*, body_*) are left at -1 for
/// the caller. The order of the appended points is a deterministic function of the inputs.
/// Two halfspaces never touch (nothing appended).
void CalcPairContacts(const ContactShape& a, const math::RigidTransform& X_WA,
                      const ContactShape& b, const math::RigidTransform& X_WB, double margin,
                      std::vector<PointContact>* out);

/// Whether the shape can present a segment or a face to another shape (box, mesh, cylinder,
/// capsule): a pair of two such shapes, halfspaces aside, takes the costly path above, a
/// deepest-point query and, when the pair is within the margin, clipping of their support
/// features.
bool HasExtendedFeatures(const ContactShape& s);

}  // namespace csim::geometry
