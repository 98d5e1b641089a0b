#pragma once
// The small convex-polygon kernels every contact-surface computation is built from
// (docs/design/hydroelastic.md §2): slice a tet by a plane, clip a polygon by a half-space or
// by the four faces of a tet, drop near-duplicate vertices, and the area and area centroid.
//
// Polygons live in a fixed-size array on the stack, not a std::vector, so that the per-step
// contact computations never allocate. Eight vertices are enough for every polygon the
// algorithms make in exact arithmetic: clipping a convex n-gon by one half-space adds at most
// one vertex, so a triangle clipped by a tet's 4 faces has <= 7, and a plane's slice of a tet
// (<= 4) clipped by another tet has <= 8 (§2 a, d). Roundoff can add more when a polygon lies
// in a clipping plane (two identical aligned boxes, §5): the vertices' signs then alternate
// and each change adds a cut point. The array has room for that, and a clip never writes past
// it; it drops the excess vertices of such a (near zero-area) polygon instead.
//
// Planes are written n . x + d = 0 with n not necessarily unit; "below" (n . x + d <= 0) is the
// kept side of a half-space. All points are in one frame, whichever the caller works in.

#include <array>

#include <Eigen/Dense>

namespace csim::hydroelastic {

/// Largest number of vertices a ClipPolygon can hold (twice the 8 of exact arithmetic).
inline constexpr int kMaxPolygonVertices = 16;

/// A convex polygon with at most kMaxPolygonVertices vertices, in order.
struct ClipPolygon {
  std::array<Eigen::Vector3d, kMaxPolygonVertices> v;  ///< [m]; only the first `size` are used
  int size = 0;
};

/// The four vertices of a tet, in one frame [m].
using TetVertices = std::array<Eigen::Vector3d, 4>;

/// Distance [m] below which two consecutive polygon vertices count as one
/// (RemoveNearDuplicateVertices). Cut points that should coincide differ by roundoff, about
/// 1e-16 times the coordinates; 1e-12 m leaves four orders of magnitude for scenes of
/// hundreds of metres and is still far below any physical feature size.
inline constexpr double kDuplicateVertexDistance = 1e-12;

/// The polygon where the plane n . x + d = 0 cuts the tet `tet` (the marching-tets slice):
/// 3 or 4 vertices counter-clockwise about n, or size 0 when the plane misses the tet. A tet
/// vertex exactly on the plane counts as above it, so a tet touching the plane at a vertex,
/// edge or face gives a degenerate polygon (repeated vertices or zero area) that
/// RemoveNearDuplicateVertices and the area test then discard (or none at all, when
/// the rest of the tet lies above).
void SliceTetByPlane(const TetVertices& tet, const Eigen::Vector3d& n, double d,
                     ClipPolygon* polygon);

/// Whether the plane n . x + d = 0 cuts the tet by the rule and arithmetic of SliceTetByPlane:
/// some vertex below it and some on or above it. When false, SliceTetByPlane(tet, n, d) gives
/// no polygon, so a caller may skip it.
bool PlaneCutsTet(const TetVertices& tet, const Eigen::Vector3d& n, double d);

/// Relative tolerance of PlaneMayMeetTet, on the largest term of the heights n . x + d.
inline constexpr double kPlaneHeightTolerance = 1e-12;

/// Whether the plane n . x + d = 0 may meet the tet: false only when the four vertices lie on
/// one side of it by more than kPlaneHeightTolerance times the largest |n| . |x| or |d|, far
/// above the roundoff of the heights n . x + d. A polygon in the plane then lies outside the
/// tet by far more than ClipPolygonByTet's roundoff, and that clip would leave nothing of it,
/// so a caller may skip it.
bool PlaneMayMeetTet(const TetVertices& tet, const Eigen::Vector3d& n, double d);

/// Sutherland-Hodgman step: replaces `polygon` by its part below the plane n . x + d = 0,
/// keeping the order (and so the winding) of the vertices. New vertices lie on the plane.
void ClipPolygonByHalfspace(const Eigen::Vector3d& n, double d, ClipPolygon* polygon);

/// Replaces `polygon` by its part inside the tet (the intersection of its 4 face half-spaces);
/// either orientation of the tet is accepted.
void ClipPolygonByTet(const TetVertices& tet, ClipPolygon* polygon);

/// The four face planes of a tet, n[i] . x + d[i] = 0 for the face opposite vertex i, with
/// n[i] turned away from that vertex: the tet is where all four are <= 0.
struct TetFaces {
  std::array<Eigen::Vector3d, 4> n;
  std::array<double, 4> d;
};

/// The face planes of `tet`, of either orientation.
TetFaces MakeTetFaces(const TetVertices& tet);

/// ClipPolygonByTet with the tet's faces made beforehand (MakeTetFaces), for a tet that clips
/// many polygons.
void ClipPolygonByTetFaces(const TetFaces& faces, ClipPolygon* polygon);

/// Removes each vertex closer than `distance` [m] to the previous kept one (cyclically, so the
/// last is also compared with the first).
void RemoveNearDuplicateVertices(ClipPolygon* polygon, double distance = kDuplicateVertexDistance);

/// Reverses the order of the vertices (the winding about a normal).
void ReverseWinding(ClipPolygon* polygon);

/// Area [m^2] and area centroid [m] of a planar convex polygon whose vertices wind
/// counter-clockwise about the unit normal `nhat`. The polygon is fanned from its first
/// vertex and each triangle (v0, vi, vi+1) weighted by its signed area 1/2 (vi - v0) x
/// (vi+1 - v0) . nhat (docs/design/hydroelastic.md §2, "triangle"), not by vertex count.
/// The area is <= 0 for a degenerate or clockwise polygon, and the centroid is then the mean
/// of the vertices.
void CalcAreaAndCentroid(const ClipPolygon& polygon, const Eigen::Vector3d& nhat, double* area,
                         Eigen::Vector3d* centroid);

}  // namespace csim::hydroelastic
