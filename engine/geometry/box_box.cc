#include "engine/geometry/box_box.h"

#include <cmath>
#include <limits>

namespace csim::geometry {
namespace {

// Edge axes must beat the best face axis by this much [m] (plus a relative part of the
// depth) to win, so that round-off ties go to the face and its clipped manifold. Kept at
// round-off level: a face axis that loses by more reports a depth deeper than the true one
// by the difference, at every point of its manifold.
constexpr double kEdgeAxisAbsoluteBias = 1e-9;
constexpr double kEdgeAxisRelativeBias = 1e-9;

struct Box {
  const math::RigidTransform& X;
  Eigen::Vector3d h;  // half extents
  // Projected half-width onto the unit axis L.
  double Radius(const Eigen::Vector3d& L) const { return h.dot((X.R.transpose() * L).cwiseAbs()); }
  // Corner farthest along d (ties to the + side).
  Eigen::Vector3d Corner(const Eigen::Vector3d& d) const {
    const Eigen::Vector3d d_B = X.R.transpose() * d;
    Eigen::Vector3d c;
    for (int i = 0; i < 3; ++i) c[i] = d_B[i] < 0.0 ? -h[i] : h[i];
    return X * c;
  }
  // Ends of the edge along axis i that is farthest along d.
  void Edge(int i, const Eigen::Vector3d& d, Eigen::Vector3d* e0, Eigen::Vector3d* e1) const {
    const Eigen::Vector3d mid = Corner(d) - (X.R.col(i).dot(d) < 0.0 ? -h[i] : h[i]) * X.R.col(i);
    *e0 = mid - h[i] * X.R.col(i);
    *e1 = mid + h[i] * X.R.col(i);
  }
};

struct Axis {
  double separation = -std::numeric_limits<double>::infinity();
  Eigen::Vector3d L = Eigen::Vector3d::UnitZ();
  int kind = -1;  // 0: face of A, 1: face of B, 2: edge pair
  int i = 0, j = 0;
};

void TryAxis(const Box& a, const Box& b, const Eigen::Vector3d& t, const Eigen::Vector3d& L,
             int kind, int i, int j, Axis* best) {
  const double separation = std::abs(t.dot(L)) - a.Radius(L) - b.Radius(L);
  if (separation > best->separation) {
    *best = {separation, t.dot(L) < 0.0 ? Eigen::Vector3d(-L) : L, kind, i, j};
  }
}

}  // namespace

SignedDistanceResult BoxBox(const math::RigidTransform& X_WA, const Eigen::Vector3d& size_a,
                            const math::RigidTransform& X_WB, const Eigen::Vector3d& size_b,
                            double cutoff) {
  const Box a{X_WA, 0.5 * size_a}, b{X_WB, 0.5 * size_b};
  const Eigen::Vector3d t = X_WB.p - X_WA.p;
  Axis face, edge;
  for (int i = 0; i < 3; ++i) TryAxis(a, b, t, X_WA.R.col(i), 0, i, 0, &face);
  for (int j = 0; j < 3; ++j) TryAxis(a, b, t, X_WB.R.col(j), 1, j, 0, &face);
  if (face.separation >= cutoff) {
    // phi0 below would be at least face.separation (an edge axis wins only by exceeding
    // it), so the caller rejects the pair: skip the nine edge axes. Half the box pairs of a
    // settled heap are apart, most of them across a face.
    SignedDistanceResult apart;
    apart.phi0 = face.separation;
    apart.nhat_AB_W = face.L;
    return apart;
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Eigen::Vector3d L = X_WA.R.col(i).cross(X_WB.R.col(j));
      if (L.norm() > 1e-6) TryAxis(a, b, t, L.normalized(), 2, i, j, &edge);
    }
  }
  const double bias = kEdgeAxisAbsoluteBias + kEdgeAxisRelativeBias * std::abs(face.separation);
  const Axis& best = edge.separation > face.separation + bias ? edge : face;
  SignedDistanceResult result;
  result.nhat_AB_W = best.L;
  result.phi0 = best.separation;
  const Eigen::Vector3d& n = best.L;
  if (best.kind == 0) {  // face of A: B's deepest corner against A's face plane
    result.p_WC = b.Corner(-n) - 0.5 * best.separation * n;
  } else if (best.kind == 1) {  // face of B: A's deepest corner against B's face plane
    result.p_WC = a.Corner(n) + 0.5 * best.separation * n;
  } else {  // edge against edge: closest points of the two support edges
    Eigen::Vector3d p0, p1, q0, q1;
    a.Edge(best.i, n, &p0, &p1);
    b.Edge(best.j, -n, &q0, &q1);
    double s, u;
    ClosestPointsOnSegments(p0, p1, q0, q1, &s, &u);
    result.p_WC = 0.5 * (p0 + s * (p1 - p0) + q0 + u * (q1 - q0));
  }
  return result;
}

}  // namespace csim::geometry
