#pragma once
// A rigid hydroelastic geometry's boundary as a triangle mesh (docs/design/hydroelastic.md
// §1), in the geometry frame: the surface a compliant body's tets are clipped against.
// Built once by the loader.

#include <vector>

#include <Eigen/Dense>

namespace csim::hydroelastic {

/// Triangles over shared vertices, counter-clockwise seen from outside, with their unit
/// outward normals.
struct SurfaceMesh {
  std::vector<Eigen::Vector3d> vertices;   ///< [m]
  std::vector<Eigen::Vector3i> triangles;  ///< indices into vertices, outward CCW
  std::vector<Eigen::Vector3d> normals;    ///< per triangle, unit, outward
};

/// Fills mesh->normals from the triangles. Returns false on a degenerate triangle.
bool ComputeTriangleNormals(SurfaceMesh* mesh);

}  // namespace csim::hydroelastic
