#pragma once
// Reading convex meshes (scene-format.md shape `mesh`) from OBJ, STL and COLLADA files, and
// making one from given vertices and triangles (a scene's inline mesh, an imported MJCF mesh).
//
// OBJ: `v x y z` and `f` lines; faces may be polygons (fan-triangulated) and may use the
// `i/t/n`, `i//n` and negative (relative) index forms; other lines are ignored.
// STL: binary (80-byte header, count, 50-byte records) or ASCII (`vertex x y z` lines);
// STL repeats vertices per facet, so equal vertices are merged. A file that starts with
// "solid" is ASCII unless it holds a NUL byte or has exactly the size of a binary STL
// (binary headers may start with "solid" too); a binary file whose size does not match
// its triangle count is rejected (truncated, or a damaged count).
// COLLADA (.dae): through assimp, in metres, the up axis ignored (dae_mesh_file.h).
// Vertices that no triangle uses are dropped.
// Winding: the files' own winding is not trusted. Because the mesh is convex, each triangle
// is re-oriented so that its normal points away from the vertex centroid, which gives the
// outward counter-clockwise winding ConvexMesh promises (and a positive volume).

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/geometry/shape.h"

namespace csim::geometry {

/// Reads the mesh at `path` (format chosen by extension, .obj, .stl or .dae,
/// case-insensitive), multiplies every vertex by `scale` elementwise and fills `out`
/// (out->file = path).
/// Returns false with a one-line reason in `error` when the file cannot be read (the
/// system's reason, e.g. "Is a directory"), has an unknown extension, is malformed or
/// truncated, has no triangles, a vertex that is not finite after scaling, or encloses no
/// volume (all triangles in one plane or on one line).
bool ReadMeshFile(const std::string& path, const Eigen::Vector3d& scale, ConvexMesh* out,
                  std::string* error);

/// The convex mesh of given vertices (already scaled) and triangles (indices into
/// `vertices`, checked by the caller), finished as ReadMeshFile finishes a file's: unused
/// vertices dropped, each triangle turned to face away from the vertex centroid. Returns
/// false with the reason in `error` ("has no triangles", "has a vertex that is not
/// finite ...", "encloses no volume ...", to follow the mesh's name) otherwise.
bool MakeConvexMesh(std::vector<Eigen::Vector3d> vertices,
                    std::vector<Eigen::Vector3i> triangles, ConvexMesh* out,
                    std::string* error);

}  // namespace csim::geometry
