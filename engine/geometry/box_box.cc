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

// Heights within this of the lowest corner's count as tied [m] (parallel faces): a distance
// claimed through a tied corner is off by at most this.
constexpr double kTiedHeight = 1e-12;

// Whether the separation `separation` > 0 of box `other` from face `axis` of box `face`,
// whose outward normal m points at `other`, is their distance: some lowest corner of `other`
// lies over the face, or, when `other` rests a face on it (three or more lowest corners),
// some corner of the face lies under that face. (A cross of two faces with no corner over
// the other is missed: the caller's GJK then finds the same distance.)
bool FaceSeparationAttained(const Box& face, int axis, const Eigen::Vector3d& m, const Box& other,
                            double separation) {
  const int j = (axis + 1) % 3, l = (axis + 2) % 3;  // the face's own axes
  int lowest = 0;
  for (int k = 0; k < 8; ++k) {
    Eigen::Vector3d c_local;
    for (int x = 0; x < 3; ++x) c_local[x] = (k >> x & 1) ? other.h[x] : -other.h[x];
    const Eigen::Vector3d c = other.X * c_local;
    if (m.dot(c - face.X.p) - face.h[axis] > separation + kTiedHeight) continue;
    ++lowest;
    const Eigen::Vector3d c_F = face.X.R.transpose() * (c - face.X.p);
    if (std::abs(c_F[j]) <= face.h[j] && std::abs(c_F[l]) <= face.h[l]) return true;
  }
  if (lowest < 3) return false;
  // other's face towards `face`: its axis most aligned with m.
  const Eigen::Vector3d m_O = other.X.R.transpose() * m;
  int k = 0;
  for (int x = 1; x < 3; ++x)
    if (std::abs(m_O[x]) > std::abs(m_O[k])) k = x;
  const double side = m.dot(face.X.R.col(axis)) < 0.0 ? -1.0 : 1.0;
  for (int corner = 0; corner < 4; ++corner) {
    Eigen::Vector3d q_F = Eigen::Vector3d::Zero();
    q_F[axis] = side * face.h[axis];
    q_F[j] = (corner & 1) ? face.h[j] : -face.h[j];
    q_F[l] = (corner & 2) ? face.h[l] : -face.h[l];
    const Eigen::Vector3d q_O = other.X.R.transpose() * (face.X * q_F - other.X.p);
    if (std::abs(q_O[(k + 1) % 3]) <= other.h[(k + 1) % 3] &&
        std::abs(q_O[(k + 2) % 3]) <= other.h[(k + 2) % 3])
      return true;
  }
  return false;
}

}  // namespace

SignedDistanceResult BoxBox(const math::RigidTransform& X_WA, const Eigen::Vector3d& size_a,
                            const math::RigidTransform& X_WB, const Eigen::Vector3d& size_b,
                            double cutoff, bool* exact) {
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
    if (exact != nullptr) *exact = false;  // phi0 only: the caller drops the pair
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
  // Apart, the separation is the distance when its witness lies within both features: a
  // lowest corner over the face (FaceSeparationAttained), the edges' closest points inside
  // both (then the lines' distance, which is the separation).
  const bool apart = best.separation > 0.0;
  bool attained = !apart;
  if (best.kind == 0) {  // face of A: B's deepest corner against A's face plane
    result.p_WC = b.Corner(-n) - 0.5 * best.separation * n;
    attained = attained || FaceSeparationAttained(a, best.i, n, b, best.separation);
  } else if (best.kind == 1) {  // face of B: A's deepest corner against B's face plane
    result.p_WC = a.Corner(n) + 0.5 * best.separation * n;
    attained = attained || FaceSeparationAttained(b, best.i, -n, a, best.separation);
  } else {  // edge against edge: closest points of the two support edges
    Eigen::Vector3d p0, p1, q0, q1;
    a.Edge(best.i, n, &p0, &p1);
    b.Edge(best.j, -n, &q0, &q1);
    double s, u;
    ClosestPointsOnSegments(p0, p1, q0, q1, &s, &u);
    result.p_WC = 0.5 * (p0 + s * (p1 - p0) + q0 + u * (q1 - q0));
    attained = attained || (s > 0.0 && s < 1.0 && u > 0.0 && u < 1.0);
  }
  if (exact != nullptr) *exact = attained;
  return result;
}

}  // namespace csim::geometry
