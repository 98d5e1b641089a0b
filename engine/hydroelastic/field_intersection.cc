#include "engine/hydroelastic/field_intersection.h"

#include <algorithm>
#include <cmath>

#include "engine/hydroelastic/contact_polygon.h"
#include "engine/hydroelastic/polygon_clipping.h"

namespace csim::hydroelastic {

using Eigen::Vector3d;

namespace {

TetVertices TetOf(const VolumeMesh& mesh, int t) {
  const auto& v = mesh.tets[t];
  return {mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]], mesh.vertices[v[3]]};
}

/// The equal-pressure plane of p_A = a . x + alpha and p_B = b . x + beta, in one frame, if the
/// tet pair passes the filters of the header: its contact normal nhat and the slice of tet_A
/// by it, counter-clockwise about nhat (size 0 when rejected or missed).
void SliceAtEqualPressure(const TetVertices& tet_A, const Vector3d& a, double alpha,
                          const Vector3d& b, double beta, ClipPolygon* polygon, Vector3d* nhat) {
  polygon->size = 0;
  const Vector3d m = b - a;
  const double norm = m.norm();
  if (!(norm > 0.0)) return;  // parallel equal fields: no plane
  *nhat = m / norm;
  if (!IsAlongGradient(-*nhat, a) || !IsAlongGradient(*nhat, b)) return;
  // (b - a) . x + (beta - alpha) = 0 is the plane, written with its normal along nhat.
  SliceTetByPlane(tet_A, m, beta - alpha, polygon);
}

/// Whether the vertex pressures of tet ta of A and tet tb of B have overlapping ranges, which
/// they must if the fields are equal anywhere in both tets (each tet's linear field takes its
/// extremes at vertices). A cheap test that drops most candidate pairs deep inside the overlap,
/// where one body's pressure is everywhere above the other's. The slack keeps pairs whose
/// ranges only touch (to roundoff), so that the test drops nothing the slicing would keep.
bool PressureRangesOverlap(const PressureField& A, int ta, const PressureField& B, int tb) {
  double lo_A = A.pressure[A.mesh.tets[ta][0]], hi_A = lo_A;
  double lo_B = B.pressure[B.mesh.tets[tb][0]], hi_B = lo_B;
  for (int i = 1; i < 4; ++i) {
    const double pa = A.pressure[A.mesh.tets[ta][i]], pb = B.pressure[B.mesh.tets[tb][i]];
    lo_A = std::min(lo_A, pa);
    hi_A = std::max(hi_A, pa);
    lo_B = std::min(lo_B, pb);
    hi_B = std::max(hi_B, pb);
  }
  const double slack = 1e-12 * (std::abs(lo_A) + std::abs(hi_A) + std::abs(lo_B) + std::abs(hi_B));
  return lo_A <= hi_B + slack && lo_B <= hi_A + slack;
}

/// The tet of B placed in A's frame, placed on first use in this query.
const PlacedTet& PlaceTet(const PressureField& field_B, int t, const math::RigidTransform& X_AB,
                          PlacedTets* placed) {
  int& slot = placed->slot[t];
  if (slot < 0) {
    PlacedTet p;  // filled here and copied: emplace_back() would zero it first
    p.tet = t;
    p.vertices = TetOf(field_B.mesh, t);
    for (Vector3d& x : p.vertices) x = X_AB * x;
    p.faces = MakeTetFaces(p.vertices);
    // p_B(x_A) = b_B . R_AB^T (x_A - p_AB) + beta_B.
    p.gradient = X_AB.R * field_B.gradient[t];
    p.offset = field_B.offset[t] - p.gradient.dot(X_AB.p);
    slot = static_cast<int>(placed->tets.size());
    placed->tets.push_back(p);
  }
  return placed->tets[slot];
}

}  // namespace

void AppendSoftSoftSurface(const PressureField& field_A, const Bvh& bvh_A,
                           const math::RigidTransform& X_WA, const PressureField& field_B,
                           const Bvh& bvh_B, const math::RigidTransform& X_WB,
                           BvhCandidates* candidates, PlacedTets* placed,
                           ContactSurface* surface) {
  const math::RigidTransform X_AB = X_WA.Inverse() * X_WB;
  FindOverlappingElements(bvh_A, bvh_B, X_AB, candidates);
  if (placed->slot.size() < field_B.mesh.tets.size()) {
    placed->slot.resize(field_B.mesh.tets.size(), -1);
  }
  placed->tets.clear();
  for (const ElementPair& pair : candidates->pairs) {
    if (!PressureRangesOverlap(field_A, pair.a, field_B, pair.b)) continue;
    const Vector3d& a = field_A.gradient[pair.a];
    const double alpha = field_A.offset[pair.a];
    const PlacedTet& tet_B = PlaceTet(field_B, pair.b, X_AB, placed);
    const Vector3d& b = tet_B.gradient;
    const double beta = tet_B.offset;
    // Early rejections before any slicing: the equal-pressure plane
    // (b - a) . x + (beta - alpha) = 0 must cut A's tet and meet B's (polygon_clipping.h).
    const Vector3d m = b - a;
    const TetVertices tet_A = TetOf(field_A.mesh, pair.a);
    if (!PlaneCutsTet(tet_A, m, beta - alpha)) continue;
    if (!PlaneMayMeetTet(tet_B.vertices, m, beta - alpha)) continue;
    ClipPolygon polygon;
    Vector3d nhat;
    SliceAtEqualPressure(tet_A, a, alpha, b, beta, &polygon, &nhat);
    if (polygon.size == 0) continue;
    ClipPolygonByTetFaces(tet_B.faces, &polygon);
    AppendContactPolygon(&polygon, nhat, a, alpha, -a.dot(nhat), b.dot(nhat), a.norm(), b.norm(),
                         X_WA, surface);
  }
  for (const PlacedTet& p : placed->tets) placed->slot[p.tet] = -1;
}

void AppendSoftCompliantHalfspaceSurface(const PressureField& field_A, const Bvh& bvh_A,
                                         const math::RigidTransform& X_WA,
                                         const CompliantHalfspace& halfspace_B,
                                         const math::RigidTransform& X_WB,
                                         BvhCandidates* candidates, ContactSurface* surface) {
  const math::RigidTransform X_AB = X_WA.Inverse() * X_WB;
  // B's outward normal and field in A's frame: p_B = -(E/H) nB . (x - p_AB), the region
  // nB . (x - p_AB) <= margin, i.e. nB . x + d <= 0.
  const Vector3d nB = X_AB.R.col(2);
  const double k = halfspace_B.PressurePerDepth();
  const Vector3d b = -k * nB;
  const double beta = k * nB.dot(X_AB.p);
  const double d = -nB.dot(X_AB.p) - halfspace_B.margin;
  FindElementsBelowPlane(bvh_A, nB, d, &candidates->elements);
  for (const int t : candidates->elements) {
    const Vector3d& a = field_A.gradient[t];
    const double alpha = field_A.offset[t];
    ClipPolygon polygon;
    Vector3d nhat;
    SliceAtEqualPressure(TetOf(field_A.mesh, t), a, alpha, b, beta, &polygon, &nhat);
    if (polygon.size == 0) continue;
    ClipPolygonByHalfspace(nB, d, &polygon);
    AppendContactPolygon(&polygon, nhat, a, alpha, -a.dot(nhat), b.dot(nhat), a.norm(), b.norm(),
                         X_WA, surface);
  }
}

}  // namespace csim::hydroelastic
