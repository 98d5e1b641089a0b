#pragma once
// Contact surfaces of a compliant body and a rigid surface mesh (docs/design/hydroelastic.md
// §2 a, c): with a rigid body the surface is the rigid body's own boundary where it lies inside
// the compliant one, so each candidate rigid triangle is clipped to the compliant region.
//
// Roles: the compliant body (a tet mesh, or a compliant half-space) is A and the rigid mesh is
// B. The rigid triangle's outward normal n_B points out of B into A, so the contact normal
// (from A into B, contact_surface.h) is nhat = -n_B and the polygons are wound about it:
//   g_a = -grad p_A . nhat = grad p_A . n_B,   g_b = +infinity.
// A triangle is used only if n_B is within 5 pi / 8 of grad p_A (§2 a step 2,
// contact_polygon.h IsAlongGradient): the rigid face that looks toward higher pressure is
// the one the soft body pushes on, and the other side of a thin rigid part is skipped.
// Faces with a small or even negative g_a inside that cone are kept, with g_a as defined.

#include "engine/hydroelastic/bvh.h"
#include "engine/hydroelastic/compliant_halfspace.h"
#include "engine/hydroelastic/contact_surface.h"
#include "engine/hydroelastic/surface_mesh.h"
#include "engine/hydroelastic/volume_mesh.h"
#include "engine/math/spatial.h"

namespace csim::hydroelastic {

/// Appends to `surface` the parts of the rigid mesh B's triangles (pose X_WB) inside the tets of
/// the compliant mesh A (pose X_WA), one polygon per candidate (tet, triangle) pair, with
/// pressures from A's field. bvh_A, bvh_B are the trees of the two meshes; `candidates` is
/// scratch. Works in A's frame. Does not touch surface->geometry_a/_b.
void AppendSoftRigidMeshSurface(const PressureField& field_A, const Bvh& bvh_A,
                                const math::RigidTransform& X_WA, const SurfaceMesh& mesh_B,
                                const Bvh& bvh_B, const math::RigidTransform& X_WB,
                                BvhCandidates* candidates, ContactSurface* surface);

/// Appends to `surface` the parts of the rigid mesh B's triangles (pose X_WB) inside the
/// compliant half-space A (pose X_WA, region z_A <= margin), one polygon per triangle, with
/// the pressure p = (E / H) depth = -(E / H) z_A. Works in B's frame.
void AppendCompliantHalfspaceRigidMeshSurface(const CompliantHalfspace& halfspace_A,
                                              const math::RigidTransform& X_WA,
                                              const SurfaceMesh& mesh_B, const Bvh& bvh_B,
                                              const math::RigidTransform& X_WB,
                                              BvhCandidates* candidates, ContactSurface* surface);

}  // namespace csim::hydroelastic
