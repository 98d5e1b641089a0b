#pragma once
// The thickness of a collision shape: its width (the distance between two parallel planes
// that enclose it) in the direction where that is least. The loader compares initial
// overlaps with it (contact/initial_overlap.h): a shape is pushed out of another along a
// direction the contact query has to guess once the overlap is a sizeable part of its
// thickness, and it can be pushed through once the overlap passes half of it.

#include "engine/geometry/shape.h"

namespace csim::geometry {

/// Least width [m] of `geometry`'s shape: sphere 2r, box its shortest edge, cylinder
/// min(2r, length), capsule 2r, ellipsoid twice its shortest radius, halfspace infinity.
/// A mesh's is the least of its widths along its frame's axes and along the principal axes
/// of its vertices' spread: exact for a box-like mesh in any orientation, and otherwise an
/// upper bound that is never below the true value.
double CalcMinimumWidth(const Geometry& geometry);

}  // namespace csim::geometry
