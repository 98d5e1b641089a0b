#pragma once
// Convex polytopes (boxes and convex meshes) with their faces merged into convex polygons,
// built once per geometry. Contact manifolds clip whole faces against each other, so a
// mesh cube must expose its 6 quadrilaterals, not its 12 triangles.

#include <vector>

#include <Eigen/Dense>

#include "engine/geometry/shape.h"

namespace csim::geometry {

/// A planar convex face: vertex indices ordered counter-clockwise about the outward normal.
struct PolytopeFace {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< outward unit normal, shape frame G
  std::vector<int> vertices;                          ///< indices into Polytope::vertices
};

/// A convex polytope in its shape frame G.
struct Polytope {
  std::vector<Eigen::Vector3d> vertices;  ///< p_GV [m], duplicates merged
  std::vector<PolytopeFace> faces;        ///< coplanar triangles merged into polygons
};

/// The box of full edge lengths `size` [m] centred on G: 8 vertices, 6 faces.
Polytope MakeBoxPolytope(const Eigen::Vector3d& size);

/// A convex mesh (outward-wound triangles) with equal vertices merged and coplanar
/// triangles merged into convex polygons (the convex hull of their vertices in the plane).
Polytope MakeMeshPolytope(const ConvexMesh& mesh);

}  // namespace csim::geometry
