#include "engine/hydroelastic/surface_mesh.h"

#include <cmath>

namespace csim::hydroelastic {

bool ComputeTriangleNormals(SurfaceMesh* mesh) {
  mesh->normals.resize(mesh->triangles.size());
  for (size_t f = 0; f < mesh->triangles.size(); ++f) {
    const Eigen::Vector3i& t = mesh->triangles[f];
    const Eigen::Vector3d& a = mesh->vertices[t[0]];
    const Eigen::Vector3d n = (mesh->vertices[t[1]] - a).cross(mesh->vertices[t[2]] - a);
    const double norm = n.norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) return false;
    mesh->normals[f] = n / norm;
  }
  return true;
}

}  // namespace csim::hydroelastic
