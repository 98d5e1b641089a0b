#pragma once
// A user's tetrahedral mesh for a non-convex compliant geometry (scene `mesh` with
// `volume: file.vtk`, docs/design/hydroelastic.md §1 and §5), and its pressure field.
//
// File format: legacy VTK, ASCII, DATASET UNSTRUCTURED_GRID, with sections POINTS (any
// numeric type), CELLS and CELL_TYPES, all cells of type 10 (VTK_TETRA). Both CELLS layouts
// are read: the classic one ("CELLS m size", then "4 i j k l" per cell) and the one of file
// version 5.x ("CELLS n_offsets n_connectivity" followed by OFFSETS and CONNECTIVITY arrays).
// Numbers may be laid out on lines freely, as VTK allows. Anything from POINT_DATA or
// CELL_DATA on is ignored; any other section is an error. BINARY files are rejected.
//
// Checks, each reported as InputError `FILE:LINE: message` (the line of the offending token,
// or of the cell at fault):
// - the header, section keywords and counts, numbers that do not parse, a file that ends early;
// - a cell that is not a tetrahedron, a vertex index out of range;
// - a degenerate (zero-volume) tet; the others are turned positive (swapping two vertices);
// - a face shared by more than two tets, and an open boundary: every edge of the boundary
//   triangles (faces of exactly one tet) must be shared by exactly two of them. An open
//   boundary means the tets do not meet face to face (a hanging vertex) or touch at an edge.
// Points no cell uses are dropped.
//
// Field (docs/design/hydroelastic.md §1): p(v) = E phi(v) / max phi at the vertices, linear
// in each tet, phi(v) the distance from v to the boundary surface (0 on boundary vertices).
// A tet whose 4 vertices all lie on the boundary would have p = 0 at all four, a zero gradient
// and no stiffness (notes §5: Drake rejects them, users must remove them by hand). Such tets
// are SPLIT here instead, into 4 tets about their centroid, which gets its own phi > 0; the
// mesh stays conforming since the tet's faces are unchanged. Cost: phi is a brute-force
// distance from each interior vertex to every boundary triangle (pruned by bounding spheres),
// once at load time.

#include <string>

#include <Eigen/Dense>

#include "engine/hydroelastic/volume_mesh.h"

namespace csim::hydroelastic {

/// Reads `path`, multiplies every point by `scale` elementwise and returns the tets, positively
/// oriented, with a closed boundary. Throws InputError (see above).
VolumeMesh ReadVtkVolumeMesh(const std::string& path,
                             const Eigen::Vector3d& scale = Eigen::Vector3d::Ones());

/// The extent field of a mesh read by ReadVtkVolumeMesh (positive tets, closed boundary): the
/// mesh with its all-boundary tets split, p = E phi / max phi at the vertices, gradients
/// filled. `modulus` E [Pa].
PressureField MakeVolumeMeshField(VolumeMesh mesh, double modulus);

}  // namespace csim::hydroelastic
