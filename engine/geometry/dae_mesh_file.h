#pragma once
// Reading COLLADA (.dae) meshes, the format ROS robots often give their meshes in, through
// assimp. ReadMeshFile (mesh_file.h) calls it for a .dae file and finishes the mesh as it
// finishes an OBJ or STL one (per-axis scale, unused vertices dropped, outward winding).
//
// What is read: every triangle of every mesh the file's scene graph instantiates, each
// vertex carried through the transforms of the nodes above it (<matrix>, <translate>,
// <rotate>, <scale>); polygons are triangulated, points and lines are dropped. Vertices at
// equal positions are merged, as in an STL (COLLADA repeats a corner for each of its
// normals).
//
// Units and axes, as ROS's consumers of URDF meshes read them (rviz, Gazebo):
// - <unit meter="s"/> is honoured: coordinates are multiplied by s, giving metres;
// - <up_axis> is ignored: the file's x, y, z are the mesh's x, y, z. assimp by default
//   turns a Z_UP file to Y_UP (x, y, z -> x, z, -y), which would tip a link's mesh over in
//   its link frame; rviz and MoveIt undo that rotation, and Gazebo never applies it.

#include <string>

#include "engine/geometry/shape.h"

namespace csim::geometry {

/// Parses the COLLADA document `bytes` (a file's whole content) into mesh->vertices [m] and
/// mesh->triangles (any winding). Returns false with assimp's one-line reason in `error`
/// when the document is not a COLLADA file assimp can read. A document without triangles
/// parses to an empty mesh (MakeConvexMesh then says "has no triangles").
bool ParseDae(const std::string& bytes, ConvexMesh* mesh, std::string* error);

}  // namespace csim::geometry
