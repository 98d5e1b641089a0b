#pragma once
// Contact surfaces of two compliant bodies (docs/design/hydroelastic.md §2 d, e): the set where
// their pressures are equal, built per candidate tet pair from the plane on which the two
// linear fields agree ([E] App. X-B).
//
// For one tet of A with p_A = a . x + alpha and one tet of B with p_B = b . x + beta (one
// frame), the fields agree on the plane (a - b) . x + (alpha - beta) = 0. Along
// nhat = (b - a) / |b - a| the difference p_A - p_B falls, so nhat points out of A and into B:
// it is the contact normal from A into B of contact_surface.h, and
//   g_a = -a . nhat = a . (a - b) / |a - b|,   g_b = b . nhat = b . (b - a) / |a - b|.
// (The notes write the plane normal the other way, (a - b) / |a - b|, "into A"; that is -nhat.)
// A tet pair is skipped when a = b (no plane), or when nhat is more than 5 pi / 8 from B's
// gradient or -nhat more than 5 pi / 8 from A's (§2 d; contact_polygon.h IsAlongGradient).
// Before any slicing, a soft-soft pair is dropped when the ranges of the two tets' vertex
// pressures are disjoint, or when the plane leaves A's four vertices on one side (no slice)
// or B's on one side by more than roundoff (nothing left by the clip): polygon_clipping.h
// PlaneCutsTet, PlaneMayMeetTet. These change the cost only, not the polygons.
// The polygon is the plane's slice of A's tet clipped by B's tet (or by B's half-space), its
// vertex pressures are p_A (= p_B there), and its g_a, g_b are kept even when small (the SAP
// mapping decides what to skip, §3 vii).
//
// Roles: A is always the tet mesh given first. Against a compliant half-space, the mesh is A
// and the half-space B (so that the normal points from the mesh into the half-space).
// The computation works in A's frame and writes the world frame.

#include <vector>

#include <Eigen/Dense>

#include "engine/hydroelastic/bvh.h"
#include "engine/hydroelastic/compliant_halfspace.h"
#include "engine/hydroelastic/contact_surface.h"
#include "engine/hydroelastic/polygon_clipping.h"
#include "engine/hydroelastic/volume_mesh.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic {

/// One tet of B in A's frame, as a soft-soft query uses it with every tet of A it meets.
struct PlacedTet {
  int tet = -1;                 ///< its index in B's mesh
  TetVertices vertices;         ///< in A's frame [m]
  TetFaces faces;               ///< of `vertices`
  Eigen::Vector3d gradient;     ///< of B's field in A's frame [Pa/m]
  double offset = 0.0;          ///< p_B(x_A) = gradient . x_A + offset [Pa]
};

/// The tets of B that one soft-soft query has placed in A's frame, each once: a tet of B meets
/// several tets of A. Reused storage (capacity kept between calls).
struct PlacedTets {
  std::vector<PlacedTet> tets;  ///< in the order first met
  std::vector<int> slot;        ///< per tet of B: its index in `tets`, -1 between queries
};

/// Appends to `surface` the polygons where the fields of the compliant meshes A (pose X_WA)
/// and B (pose X_WB) are equal, one per candidate tet pair that yields a proper polygon.
/// bvh_A, bvh_B are the trees of the two meshes (BuildBvh); `candidates` and `placed` are
/// scratch. Polygon normals point from A into B. Does not touch surface->geometry_a/_b.
void AppendSoftSoftSurface(const PressureField& field_A, const Bvh& bvh_A,
                           const math::RigidTransform& X_WA, const PressureField& field_B,
                           const Bvh& bvh_B, const math::RigidTransform& X_WB,
                           BvhCandidates* candidates, PlacedTets* placed,
                           ContactSurface* surface);

/// Appends to `surface` the polygons where the field of the compliant mesh A (pose X_WA)
/// equals that of the compliant half-space B (pose X_WB): the same construction with the
/// half-space's linear field on every tet, clipped by the half-space z_B <= margin instead of
/// a tet. Polygon normals point from the mesh A into the half-space B.
void AppendSoftCompliantHalfspaceSurface(const PressureField& field_A, const Bvh& bvh_A,
                                         const math::RigidTransform& X_WA,
                                         const CompliantHalfspace& halfspace_B,
                                         const math::RigidTransform& X_WB,
                                         BvhCandidates* candidates, ContactSurface* surface);

}  // namespace csim::hydroelastic
