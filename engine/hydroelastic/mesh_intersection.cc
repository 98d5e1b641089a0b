#include "engine/hydroelastic/mesh_intersection.h"

#include <limits>

#include "engine/hydroelastic/contact_polygon.h"
#include "engine/hydroelastic/polygon_clipping.h"

namespace csim::hydroelastic {

using Eigen::Vector3d;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Triangle f of `mesh`, mapped by X_FB into frame F and wound about -n_B (its inward normal),
/// which is the contact normal from the compliant body into the rigid one.
ClipPolygon ReversedTriangle(const SurfaceMesh& mesh, int f, const math::RigidTransform& X_FB) {
  ClipPolygon polygon;
  const Eigen::Vector3i& tri = mesh.triangles[f];
  polygon.size = 3;
  polygon.v[0] = X_FB * mesh.vertices[tri[2]];
  polygon.v[1] = X_FB * mesh.vertices[tri[1]];
  polygon.v[2] = X_FB * mesh.vertices[tri[0]];
  return polygon;
}

}  // namespace

void AppendSoftRigidMeshSurface(const PressureField& field_A, const Bvh& bvh_A,
                                const math::RigidTransform& X_WA, const SurfaceMesh& mesh_B,
                                const Bvh& bvh_B, const math::RigidTransform& X_WB,
                                BvhCandidates* candidates, ContactSurface* surface) {
  const math::RigidTransform X_AB = X_WA.Inverse() * X_WB;
  FindOverlappingElements(bvh_A, bvh_B, X_AB, candidates);
  const VolumeMesh& mesh_A = field_A.mesh;
  for (const ElementPair& pair : candidates->pairs) {
    const Vector3d& grad_A = field_A.gradient[pair.a];
    const Vector3d n_B = X_AB.R * mesh_B.normals[pair.b];  // rigid outward normal, in A
    if (!IsAlongGradient(n_B, grad_A)) continue;
    ClipPolygon polygon = ReversedTriangle(mesh_B, pair.b, X_AB);
    const auto& v = mesh_A.tets[pair.a];
    ClipPolygonByTet({mesh_A.vertices[v[0]], mesh_A.vertices[v[1]], mesh_A.vertices[v[2]],
                      mesh_A.vertices[v[3]]},
                     &polygon);
    AppendContactPolygon(&polygon, -n_B, grad_A, field_A.offset[pair.a], grad_A.dot(n_B),
                         kInfinity, grad_A.norm(), kInfinity, X_WA, surface);
  }
}

void AppendCompliantHalfspaceRigidMeshSurface(const CompliantHalfspace& halfspace_A,
                                              const math::RigidTransform& X_WA,
                                              const SurfaceMesh& mesh_B, const Bvh& bvh_B,
                                              const math::RigidTransform& X_WB,
                                              BvhCandidates* candidates, ContactSurface* surface) {
  const math::RigidTransform X_BA = X_WB.Inverse() * X_WA;
  // A's outward normal and field in B's frame: p_A = -(E/H) nA . (x - p_BA), the region
  // nA . (x - p_BA) <= margin, i.e. nA . x + d <= 0.
  const Vector3d nA = X_BA.R.col(2);
  const double k = halfspace_A.PressurePerDepth();
  const Vector3d grad_A = -k * nA;
  const double offset_A = k * nA.dot(X_BA.p);
  const double d = -nA.dot(X_BA.p) - halfspace_A.margin;
  FindElementsBelowPlane(bvh_B, nA, d, &candidates->elements);
  const math::RigidTransform X_BB = math::RigidTransform::Identity();
  for (const int f : candidates->elements) {
    const Vector3d& n_B = mesh_B.normals[f];
    if (!IsAlongGradient(n_B, grad_A)) continue;
    ClipPolygon polygon = ReversedTriangle(mesh_B, f, X_BB);
    ClipPolygonByHalfspace(nA, d, &polygon);
    AppendContactPolygon(&polygon, -n_B, grad_A, offset_A, grad_A.dot(n_B), kInfinity,
                         grad_A.norm(), kInfinity, X_WB, surface);
  }
}

}  // namespace csim::hydroelastic
