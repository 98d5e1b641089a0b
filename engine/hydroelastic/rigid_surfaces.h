#pragma once
// Triangle surface meshes of RIGID hydroelastic geometries (docs/design/hydroelastic.md §1):
// the surface a compliant body's tets are clipped against (§2 a). Built once by the loader,
// in the geometry frame; triangles counter-clockwise seen from outside, with unit outward
// normals (SurfaceMesh).
//
// Each primitive's surface is the boundary of its compliant mesh (compliant_meshes.h) with
// margin 0, so a rigid and a compliant geometry of the same shape and hint have the same
// surface, and there is one tessellation per shape to get right:
// - sphere R: the refined octahedron, vertices on the sphere, 8*4^L triangles,
//   L = SphereRefinementLevel(R, hint);
// - ellipsoid: the unit-sphere tessellation of hint h / max(a,b,c), scaled by (a,b,c);
// - box: 14 vertices (corners and face centres), 4 triangles per face about its centre, hint
//   ignored; the symmetric split keeps a face's contact patch symmetric;
// - cylinder: two n-gon rims (n = RimVertexCount(R, hint)) and the cap centres; n triangles
//   per cap, 2n on the side;
// - capsule: rims, latitude rings and poles as the compliant capsule's surface;
// - convex mesh: its own triangles (already outward CCW, mesh_file.h).
// Rigid geometry is never inflated by a margin (notes §1).

#include <string>

#include "engine/geometry/shape.h"
#include "engine/hydroelastic/surface_mesh.h"
#include "engine/hydroelastic/volume_mesh.h"

namespace csim::hydroelastic {

/// The faces of `mesh` used by exactly one tet, each turned to face away from its tet (outward
/// CCW for positively oriented tets), over the vertices they use, renumbered in order of first
/// use; normals filled. Faces keep the order of their tets.
SurfaceMesh BoundarySurface(const VolumeMesh& mesh);

/// Rigid primitives; sizes [m] as in shape.h (box: FULL edge lengths), hint [m].
SurfaceMesh MakeRigidSphere(double radius, double hint);
SurfaceMesh MakeRigidEllipsoid(const Eigen::Vector3d& semi_axes, double hint);
SurfaceMesh MakeRigidBox(const Eigen::Vector3d& size);
SurfaceMesh MakeRigidCylinder(double radius, double length, double hint);
SurfaceMesh MakeRigidCapsule(double radius, double length, double hint);
SurfaceMesh MakeRigidConvex(const geometry::ConvexMesh& mesh);

/// The surface of a rigid `geometry` of any shape but the half-space (an exact plane, no
/// mesh), with the conventions above. Returns false with a one-line reason in `error` for a
/// half-space or a mesh with a degenerate triangle.
bool MakeRigidSurface(const geometry::Geometry& geometry, double hint, SurfaceMesh* surface,
                      std::string* error);

}  // namespace csim::hydroelastic
