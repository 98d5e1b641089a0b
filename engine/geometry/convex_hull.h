#pragma once
// The volume of the convex hull of a point set, for telling a user how far a mesh is from
// convex (mesh_convexity.h). csim's contacts never build this hull: they take a mesh's
// support point from its vertices, which is the hull's support point, so the hull is what
// the contact query sees; only its volume is needed, once per mesh at load time.
//
// Method: quickhull (Barber, Dobkin & Huhdanpaa 1996). A tetrahedron of extreme points
// starts the hull; every other point is kept in the outside set of one face it lies above;
// the farthest point of a face's set is added by removing the faces it sees and joining it
// to their horizon, and the orphaned points are handed to the new faces. Points within a
// round-off tolerance of a face count as inside, which can only shrink the volume, by at
// most that tolerance times the hull's area.
// Alternative rejected: qhull, which Debian ships, but not its headers here; the volume
// needs about a hundred lines.

#include <vector>

#include <Eigen/Dense>

namespace csim::geometry {

/// Volume [m^3] of the convex hull of `points` [m] (any order, duplicates allowed). 0 when
/// there are fewer than 4 points or they lie in one plane (within 1e-10 of their spread).
double ConvexHullVolume(const std::vector<Eigen::Vector3d>& points);

}  // namespace csim::geometry
