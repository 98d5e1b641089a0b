#include "engine/geometry/gjk_distance.h"

#include <array>
#include <cmath>
#include <limits>

namespace csim::geometry {
namespace {

using Eigen::Vector3d;

constexpr int kMaxIterations = 64;

// A point of M = A - B with the support points of A and B it came from.
struct SimplexVertex {
  Vector3d w, a, b;  // w = a - b [m]
};

struct Simplex {
  int n = 0;
  std::array<SimplexVertex, 4> v;
};

// The point of the affine hull of the subset `mask` of s nearest the origin, if it lies
// inside the subset's simplex: writes its barycentric weights and returns true.
bool AffineClosest(const Simplex& s, int mask, std::array<double, 4>* lambda) {
  std::array<int, 4> ids{};
  int k = 0;
  for (int i = 0; i < s.n; ++i) {
    if (mask & (1 << i)) ids[k++] = i;
  }
  lambda->fill(0.0);
  const Vector3d& p0 = s.v[ids[0]].w;
  if (k == 1) {
    (*lambda)[ids[0]] = 1.0;
    return true;
  }
  // Minimise |p0 + sum mu_i (p_i - p0)|: the Gram system G mu = -E^T p0.
  Eigen::Matrix3d G = Eigen::Matrix3d::Identity();
  Vector3d rhs = Vector3d::Zero();
  Eigen::Matrix<double, 3, 3> E = Eigen::Matrix3d::Zero();
  for (int i = 1; i < k; ++i) E.col(i - 1) = s.v[ids[i]].w - p0;
  const int m = k - 1;
  G.topLeftCorner(m, m) = E.leftCols(m).transpose() * E.leftCols(m);
  rhs.head(m) = -E.leftCols(m).transpose() * p0;
  const double scale = G.topLeftCorner(m, m).diagonal().maxCoeff();
  Vector3d mu = Vector3d::Zero();
  if (m == 1) {
    if (!(G(0, 0) > 0.0)) return false;
    mu[0] = rhs[0] / G(0, 0);
  } else if (m == 2) {
    const Eigen::Matrix2d G2 = G.topLeftCorner(2, 2);
    const double det = G2.determinant();
    if (!(std::abs(det) > 1e-14 * scale * scale)) return false;
    mu.head(2) = G2.inverse() * rhs.head(2);
  } else {
    const double det = G.determinant();
    if (!(std::abs(det) > 1e-14 * scale * scale * scale)) return false;
    mu = G.inverse() * rhs;
  }
  double lambda0 = 1.0;
  for (int i = 0; i < m; ++i) {
    if (!(mu[i] > 0.0)) return false;
    lambda0 -= mu[i];
    (*lambda)[ids[i + 1]] = mu[i];
  }
  if (!(lambda0 > 0.0)) return false;
  (*lambda)[ids[0]] = lambda0;
  return true;
}

// Replaces s by its smallest face nearest the origin and writes that nearest point v.
// Returns false if the simplex is a tetrahedron enclosing the origin.
bool ReduceToNearestFace(Simplex* s, Vector3d* v, std::array<double, 4>* weights) {
  double best = std::numeric_limits<double>::infinity();
  int best_mask = 1;
  std::array<double, 4> lambda, best_lambda{};
  for (int mask = 1; mask < (1 << s->n); ++mask) {
    if (!AffineClosest(*s, mask, &lambda)) continue;
    if (s->n == 4 && mask == 15) return false;  // inside the tetrahedron
    Vector3d p = Vector3d::Zero();
    for (int i = 0; i < s->n; ++i) p += lambda[i] * s->v[i].w;
    if (p.squaredNorm() < best) {
      best = p.squaredNorm();
      best_mask = mask;
      best_lambda = lambda;
      *v = p;
    }
  }
  Simplex reduced;
  for (int i = 0; i < s->n; ++i) {
    if (best_mask & (1 << i)) {
      (*weights)[reduced.n] = best_lambda[i];
      reduced.v[reduced.n++] = s->v[i];
    }
  }
  *s = reduced;
  return true;
}

SimplexVertex Support(const ContactShape& a, const math::RigidTransform& X_WA,
                      const ContactShape& b, const math::RigidTransform& X_WB,
                      const Vector3d& d) {
  SimplexVertex v;
  v.a = a.Support(X_WA, d);
  v.b = b.Support(X_WB, -d);
  v.w = v.a - v.b;
  return v;
}

}  // namespace

GjkResult CalcGjkDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                          const ContactShape& b, const math::RigidTransform& X_WB,
                          double tolerance) {
  GjkResult result;
  Simplex s;
  const Vector3d centres = X_WA.p - X_WB.p;  // M's centre, roughly
  s.v[s.n++] = Support(a, X_WA, b, X_WB,
                       centres.norm() > 0.0 ? Vector3d(-centres) : Vector3d::UnitZ());
  std::array<double, 4> weights = {1.0, 0.0, 0.0, 0.0};
  Vector3d v = s.v[0].w;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    const double distance = v.norm();
    if (!(distance > 1e-3 * tolerance)) {  // touching: no direction to trust
      result.overlapping = true;
      break;
    }
    const SimplexVertex w = Support(a, X_WA, b, X_WB, -v);
    result.upper = distance;
    result.lower = w.w.dot(v) / distance;
    result.nhat_AB_W = -v / distance;
    result.p_A.setZero();
    result.p_B.setZero();
    for (int i = 0; i < s.n; ++i) {
      result.p_A += weights[i] * s.v[i].a;
      result.p_B += weights[i] * s.v[i].b;
    }
    if (result.upper - result.lower <= tolerance) break;
    bool repeated = false;
    for (int i = 0; i < s.n; ++i) repeated |= (s.v[i].w - w.w).norm() <= 1e-15 * distance;
    if (repeated) break;  // no progress possible: the bounds are what they are
    s.v[s.n++] = w;
    Vector3d v_next = Vector3d::Zero();
    if (!ReduceToNearestFace(&s, &v_next, &weights)) {
      result.overlapping = true;
      break;
    }
    if (!(v_next.norm() < distance)) break;  // round-off: the bounds are final
    v = v_next;
  }
  return result;
}

}  // namespace csim::geometry
