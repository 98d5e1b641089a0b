#include "engine/hydroelastic/contact_polygon.h"

namespace csim::hydroelastic {

bool AppendContactPolygon(ClipPolygon* polygon_F, const Eigen::Vector3d& nhat_F,
                          const Eigen::Vector3d& grad_F, double offset, double g_a, double g_b,
                          double norm_a, double norm_b, const math::RigidTransform& X_WF,
                          ContactSurface* surface) {
  RemoveNearDuplicateVertices(polygon_F);
  if (polygon_F->size < 3) return false;
  double area = 0.0;
  Eigen::Vector3d centroid_F;
  CalcAreaAndCentroid(*polygon_F, nhat_F, &area, &centroid_F);
  // A zero-area polygon (collinear vertices, a touch) has no centroid or force; a tiny positive
  // one is kept, and the SAP mapping applies its own area floor (§3).
  if (!(area > 0.0)) return false;

  ContactPolygon polygon;
  polygon.first_vertex = static_cast<int>(surface->vertices.size());
  polygon.num_vertices = polygon_F->size;
  polygon.centroid = X_WF * centroid_F;
  polygon.normal = X_WF.R * nhat_F;
  polygon.area = area;  // a rigid motion keeps areas
  polygon.pressure = grad_F.dot(centroid_F) + offset;
  polygon.gradient_a = g_a;
  polygon.gradient_b = g_b;
  polygon.gradient_norm_a = norm_a;
  polygon.gradient_norm_b = norm_b;
  for (int i = 0; i < polygon_F->size; ++i) {
    const Eigen::Vector3d& x_F = polygon_F->v[i];
    surface->vertices.push_back(X_WF * x_F);
    surface->vertex_pressure.push_back(grad_F.dot(x_F) + offset);
  }
  surface->polygons.push_back(polygon);
  return true;
}

}  // namespace csim::hydroelastic
