#include "engine/hydroelastic/volume_mesh.h"

#include <cmath>

namespace csim::hydroelastic {

double TetVolume(const VolumeMesh& mesh, int t) {
  const auto& v = mesh.tets[t];
  const Eigen::Vector3d& a = mesh.vertices[v[0]];
  return (mesh.vertices[v[1]] - a).cross(mesh.vertices[v[2]] - a).dot(mesh.vertices[v[3]] - a) /
         6.0;
}

bool ComputeFieldGradients(PressureField* field) {
  const VolumeMesh& mesh = field->mesh;
  const int num_tets = static_cast<int>(mesh.tets.size());
  field->gradient.resize(num_tets);
  field->offset.resize(num_tets);
  for (int t = 0; t < num_tets; ++t) {
    const auto& v = mesh.tets[t];
    const Eigen::Vector3d& x0 = mesh.vertices[v[0]];
    Eigen::Matrix3d D;  // rows: the edges from vertex 0
    for (int i = 0; i < 3; ++i) D.row(i) = (mesh.vertices[v[i + 1]] - x0).transpose();
    const double det = D.determinant();
    if (!(std::abs(det) > 0.0) || !std::isfinite(det)) return false;
    const double p0 = field->pressure[v[0]];
    const Eigen::Vector3d dp(field->pressure[v[1]] - p0, field->pressure[v[2]] - p0,
                             field->pressure[v[3]] - p0);
    // D g = dp: the field's change along each edge is the gradient's projection on it.
    field->gradient[t] = D.partialPivLu().solve(dp);
    field->offset[t] = p0 - field->gradient[t].dot(x0);
  }
  return true;
}

}  // namespace csim::hydroelastic
