#pragma once
// Tetrahedral meshes with linear pressure fields for the compliant primitives
// (docs/design/hydroelastic.md §1). Built once by the loader, in the geometry frame
// (shape.h: every shape centred on its frame, cylinder and capsule along z).
//
// Conventions common to every mesh made here:
// - Every tet is positively oriented ((v1-v0) x (v2-v0) . (v3-v0) > 0) and the mesh is
//   conforming: two tets share a whole face, a whole edge, a vertex or nothing, so the faces
//   used by a single tet form a closed surface. Where a quadrilateral must be split into two
//   triangles (a prism's side, a box region's side) it is split along the diagonal through
//   its smallest vertex index, the rule both tets sharing that quad apply, which keeps the
//   mesh conforming without bookkeeping (Dompierre et al., "How to subdivide pyramids, prisms
//   and hexahedra into tetrahedra", 1999).
// - p = 0 at every boundary vertex (margin 0), p = E at the deepest vertex, linear in each tet,
//   with field.gradient / field.offset filled (ComputeFieldGradients).
// - Box, cylinder and convex fields are the scaled distance of the meshed solid (exact in every
//   tet, see each function); sphere, ellipsoid and capsule meshes are inscribed in the shape,
//   so their field approaches the analytic one as the hint shrinks (error O(h^2)).
//
// Margin delta >= 0 (notes §1 "Margin"): the mesh is that of the shape inflated by delta, and
// the vertex pressures are rescaled so that p = 0 still holds on the original surface (for the
// meshed, possibly polygonal, original), p < 0 in the delta-thick skirt and p = E at the
// deepest point. With depth phi' measured in the inflated solid and H the original foundation
// depth (the deepest phi of the original solid), the vertex values are p = E (phi' - delta)/H,
// so the skirt's outer surface carries -E delta / H. The hint is always applied to the original
// shape, so a margin never changes the tessellation.
//
// Alternatives rejected: Drake's "dense" sphere (8^(L+1) tets), which refines the interior too
// and only matters for deformable bodies; offsetting each convex face by exactly delta, which
// needs a vertex split where more than three faces meet (the convex margin below scales the
// starburst about its apex instead).

#include <string>

#include <Eigen/Dense>

#include "engine/geometry/shape.h"
#include "engine/hydroelastic/volume_mesh.h"

namespace csim::hydroelastic {

/// Octahedron refinement level cap: 8 * 4^8 = 524288 tets, the finest sphere mesh made. A tiny
/// hint would otherwise ask for an unbounded mesh (notes §5, "a tiny hint used to overflow").
inline constexpr int kMaxSphereRefinement = 8;

/// Rim vertex cap of the cylinder and capsule (about 5e5 capsule tets at the cap).
inline constexpr int kMaxRimVertices = 706;

/// Refinement level L of a sphere of radius `radius` [m] meshed with edge hint `hint` [m]:
/// L = max(0, ceil(log2(pi / asin(min(h, 2R) / (2R)))) - 2), capped at kMaxSphereRefinement
/// (notes §1). The sparse mesh then has 8 * 4^L tets. R = 5 cm: h = 5 cm -> L = 1 (32 tets),
/// 2 cm -> 2 (128), 1 cm -> 3 (512), 5 mm -> 4 (2048).
int SphereRefinementLevel(double radius, double hint);

/// Vertices on a circular rim of radius `radius` [m] with edge hint `hint` [m]:
/// n = ceil(2 pi R / h), clamped to [3, kMaxRimVertices].
int RimVertexCount(double radius, double hint);

/// Sphere of radius `radius` [m], field E (1 - r/R) at the vertices. Mesh ("sparse"): the
/// octahedron with vertices (+-R,0,0), (0,+-R,0), (0,0,+-R), each surface triangle split L
/// times into 4 through its edge midpoints, each new vertex pushed radially onto the sphere;
/// vertex 0 is the centre, the only interior vertex, and every tet is (centre, surface
/// triangle): 8 * 4^L tets, 4 * 4^L + 2 surface vertices. L = SphereRefinementLevel(R, hint).
/// Margin: the same mesh scaled to radius R + delta, field still E (1 - r/R).
PressureField MakeCompliantSphere(double radius, double modulus, double hint, double margin);

/// Ellipsoid with semi-axes `semi_axes` = (a, b, c) [m]: the unit-sphere mesh of level
/// SphereRefinementLevel(1, hint / max(a, b, c)) scaled by (a, b, c); field
/// E (1 - ||(x/a, y/b, z/c)||) at the vertices. Margin: the mesh is scaled by
/// (a + delta, b + delta, c + delta), field unchanged (0 on the original ellipsoid).
PressureField MakeCompliantEllipsoid(const Eigen::Vector3d& semi_axes, double modulus,
                                     double hint, double margin);

/// Box of FULL edge lengths `size` [m] (half sizes h = size/2, m = min(h)). Field
/// E phi / m, phi the distance to the nearest face, exact in every tet. Mesh (medial axis,
/// no hint): vertices are the 8 corners, the 6 face centres and the inner points
/// (+-(hx - m), +-(hy - m), +-(hz - m)) (1, 2, 4 or 8 distinct ones). The region where face f
/// is nearest is the hull of f's corners and the 4 inner points on f's side; it is split into
/// tets coned from f's centre over the region's other faces, so each box face is 4 surface
/// triangles about its centre. A face with in-plane half sizes (u, v) gets 2 tets per side
/// face (1 where it collapses to a triangle: the half size along that side is m) plus 2
/// for its medial rectangle when u > m and v > m: 24 tets for a cube, 32 when the two smallest
/// half sizes are equal and the third larger, 44 otherwise.
/// Margin: half sizes + delta, p = E (phi' - delta) / m.
PressureField MakeCompliantBox(const Eigen::Vector3d& size, double modulus, double margin);

/// Cylinder of radius `radius` and length `length` [m] along z. The circle is replaced by the
/// regular n-gon inscribed in it (n = RimVertexCount(R, hint), a vertex on +x); H = min(R, L/2).
/// Mesh (medial axis): rim vertices at z = +-L/2, the two cap centres, and the medial axis:
/// the points (0, 0, +-(L/2 - R)) when L/2 > R (5n tets), the centre when L/2 = R (4n), the
/// centre plus a ring of n points of radius R - L/2 at z = 0 when L/2 < R (9n). Medial vertices
/// carry E, boundary ones 0. In every tet the field is exact for the n-gon prism:
///   p = E min( min_i d_i / (H cos(pi/n)), (L/2 - |z|) / H ),
/// d_i the distance to side i, i.e. E times the distance to the nearest face, the side faces
/// scaled by the polygon's inradius. |L/2 - R| <= 1e-9 R counts as L/2 = R.
/// Margin: R + delta and L + 2 delta, p = E (phi' - delta)/H (0 on the original n-gon prism).
PressureField MakeCompliantCylinder(double radius, double length, double modulus, double hint,
                                    double margin);

/// Capsule of radius `radius` [m], cap centres at z = +-length/2. Field E (1 - r/R), r the
/// distance to the segment. Mesh: n = RimVertexCount(R, hint) around; each hemisphere has
/// m = max(1, ceil(n/4)) rings from its rim (latitude 0) to below its pole, plus the pole; the
/// segment ends A+- are the only interior vertices. Tets: the cylindrical part is n prisms
/// (A+, rim_i, rim_i+1 / A-, ...) of 3 tets; each hemisphere is coned from its segment end over
/// its 2n(m-1) + n surface triangles: 4n(m-1) + 5n tets. Margin: R + delta, field unchanged.
PressureField MakeCompliantCapsule(double radius, double length, double modulus, double hint,
                                   double margin);

/// Convex mesh, "starburst": vertices merged by exact position, the volume centroid c of the
/// closed triangle surface appended as the LAST vertex, and one tet (c, triangle) per triangle.
/// Field 0 on the surface and E at c; in the tet of face f it is E (1 - n_f.(x - c)/h_f),
/// h_f the distance from c to f's plane, i.e. E (1 - gauge of the hull about c).
/// Margin: every vertex is moved away from c by the factor s = 1 + delta / min_f h_f and gets
/// p = E (1 - s); each face's field is unchanged, so p = 0 stays on the original faces and the
/// skirt is delta thick on the face nearest c and thicker (delta h_f / min h) elsewhere.
/// Returns false with a one-line reason in `error` when the triangles do not bound a closed
/// surface or some triangle does not face away from c (a non-convex mesh).
bool MakeCompliantConvex(const geometry::ConvexMesh& mesh, double modulus, double margin,
                         PressureField* field, std::string* error);

/// The mesh and field of a compliant `geometry` (any shape but the half-space, which has no
/// mesh): dispatches to the functions above with size conventions of shape.h. `hint` [m] is
/// ignored by the box and the mesh. Returns false with `error` as MakeCompliantConvex does.
bool MakeCompliantField(const geometry::Geometry& geometry, double modulus, double hint,
                        double margin, PressureField* field, std::string* error);

/// How coarse a compliant mesh is, for the loader's warning: the longest edge of the mesh's
/// boundary triangles against a quarter of the shape's smallest dimension (the loader passes
/// geometry::CalcMinimumWidth). The boundary edge measures how finely the curved surface is
/// resolved; a tet edge would not, since the sparse sphere's spokes are always R long.
/// Use it for the sphere, ellipsoid and user volume meshes. The box, cylinder and convex fields
/// are exact whatever the tet size, and the cylinder's and capsule's rim edges are shorter
/// than the hint by construction, so for those the hint itself is the measure.
struct MeshCoarseness {
  double longest_boundary_edge = 0.0;  ///< [m]
  double limit = 0.0;                  ///< a quarter of the smallest dimension [m]
  bool coarse() const { return longest_boundary_edge > limit; }
};
MeshCoarseness CheckMeshCoarseness(const VolumeMesh& mesh, double smallest_dimension);

}  // namespace csim::hydroelastic
