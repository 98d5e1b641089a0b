#pragma once
// The contact surface of a compliant mesh and a rigid half-space (docs/design/hydroelastic.md
// §2 b): the plane's slice of the mesh, one polygon per tet the plane cuts, with pressures
// from the mesh's field. There is no normal-vs-gradient filter: the plane has no far side.
//
// Roles: the mesh is A and the half-space (region z_B <= 0 of its frame, outward normal n_B =
// +z_B) is B. n_B points out of B into A, so the contact normal from A into B is nhat = -n_B:
//   g_a = -grad p_A . nhat = grad p_A . n_B,   g_b = +infinity.
// Slices of neighbouring tets share their cut points bit for bit (polygon_clipping.h), so the
// surface has no cracks.

#include "engine/hydroelastic/bvh.h"
#include "engine/hydroelastic/contact_surface.h"
#include "engine/hydroelastic/volume_mesh.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic {

/// Appends to `surface` the slice of the compliant mesh A (pose X_WA) by the boundary plane of
/// the rigid half-space B (pose X_WB). bvh_A is A's tree; `candidates` is scratch. Works in A's
/// frame. Does not touch surface->geometry_a/_b.
void AppendSoftRigidHalfspaceSurface(const PressureField& field_A, const Bvh& bvh_A,
                                     const math::RigidTransform& X_WA,
                                     const math::RigidTransform& X_WB, BvhCandidates* candidates,
                                     ContactSurface* surface);

}  // namespace csim::hydroelastic
