#include "engine/hydroelastic/plane_intersection.h"

#include <limits>

#include "engine/hydroelastic/contact_polygon.h"
#include "engine/hydroelastic/polygon_clipping.h"

namespace csim::hydroelastic {

using Eigen::Vector3d;

void AppendSoftRigidHalfspaceSurface(const PressureField& field_A, const Bvh& bvh_A,
                                     const math::RigidTransform& X_WA,
                                     const math::RigidTransform& X_WB, BvhCandidates* candidates,
                                     ContactSurface* surface) {
  const math::RigidTransform X_AB = X_WA.Inverse() * X_WB;
  // The plane n_B . (x - p_AB) = 0 in A's frame, and the contact normal nhat = -n_B.
  const Vector3d n_B = X_AB.R.col(2);
  const double d = -n_B.dot(X_AB.p);
  const Vector3d nhat = -n_B;
  FindElementsCrossingPlane(bvh_A, n_B, d, &candidates->elements);
  const VolumeMesh& mesh = field_A.mesh;
  for (const int t : candidates->elements) {
    const auto& v = mesh.tets[t];
    ClipPolygon polygon;
    // The same plane written with normal nhat, so the slice winds about nhat.
    SliceTetByPlane({mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]],
                     mesh.vertices[v[3]]},
                    nhat, -d, &polygon);
    const Vector3d& grad_A = field_A.gradient[t];
    constexpr double kRigid = std::numeric_limits<double>::infinity();
    AppendContactPolygon(&polygon, nhat, grad_A, field_A.offset[t], grad_A.dot(n_B), kRigid,
                         grad_A.norm(), kRigid, X_WA, surface);
  }
}

}  // namespace csim::hydroelastic
