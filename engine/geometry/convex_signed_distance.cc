#include "engine/geometry/convex_signed_distance.h"

#include <algorithm>

#include "engine/common/check.h"
#include "engine/geometry/gjk_distance.h"
#include "engine/geometry/penetration_depth.h"

namespace csim::geometry {
namespace {

constexpr int kMaxSharpenings = 16;

// Sharpens an overlap's normal and separation: B moved out along the normal n by its
// depth plus a clearance is apart, and GJK gives that pair's distance direction n' and
// separation; the unmoved pair's separation along n' is that minus the push times n . n'.
// A fixed-point step towards the optimum, exact on ridges of sep (a cylinder's side, a
// box's edge) where a search on the sphere stalls, and accepted only when it improves.
void Sharpen(const ContactShape& a, const math::RigidTransform& X_WA, const ContactShape& b,
             const math::RigidTransform& X_WB, double clearance, double tolerance,
             SignedDistanceResult* r) {
  for (int k = 0; k < kMaxSharpenings; ++k) {
    const Eigen::Vector3d n = r->nhat_AB_W;
    const double push = std::max(0.0, -r->phi0) + clearance;
    math::RigidTransform moved = X_WB;
    moved.p += push * n;
    const GjkResult gjk = CalcGjkDistance(a, X_WA, b, moved, 1e-3 * tolerance);
    if (gjk.overlapping || !(gjk.lower > 0.0)) return;
    const double separation = gjk.lower - push * n.dot(gjk.nhat_AB_W);
    if (!(separation > r->phi0)) return;
    const double gain = separation - r->phi0;
    r->phi0 = separation;
    r->nhat_AB_W = gjk.nhat_AB_W;
    r->p_WC = 0.5 * (gjk.p_A + gjk.p_B - push * n);
    if (gain <= 1e-3 * tolerance) return;
  }
}

bool IsStrictlyConvex(const ContactShape& s) {
  return s.type() == ShapeType::kSphere || s.type() == ShapeType::kEllipsoid;
}

// Ascends sep(n) = -h_A(n) - h_B(-n) on the sphere from the result's normal by projected
// gradient steps (the gradient is the support difference s_B(-n) - s_A(n)) with a step
// doubled on success and halved on failure. Converges where both supports are smooth (two
// ellipsoids, whose overlaps EPA's storage may not resolve) and stops at a ridge, which
// Sharpen then handles. Accepted only when it improves.
void Ascend(const ContactShape& a, const math::RigidTransform& X_WA, const ContactShape& b,
            const math::RigidTransform& X_WB, SignedDistanceResult* r) {
  Eigen::Vector3d n = r->nhat_AB_W;
  auto gradient = [&](const Eigen::Vector3d& m) {
    return Eigen::Vector3d(b.Support(X_WB, -m) - a.Support(X_WA, m));
  };
  Eigen::Vector3d g = gradient(n);
  double separation = n.dot(g);
  double step = 1.0 / std::max(g.norm(), 1e-300);
  for (int iteration = 0; iteration < 100; ++iteration) {
    const Eigen::Vector3d ascent = g - g.dot(n) * n;
    if (!(ascent.norm() * step > 1e-12)) break;
    const Eigen::Vector3d m = (n + step * ascent).normalized();
    const Eigen::Vector3d g_m = gradient(m);
    if (m.dot(g_m) > separation) {
      n = m;
      g = g_m;
      separation = m.dot(g_m);
      step *= 2.0;
    } else {
      step *= 0.5;
    }
  }
  if (!(separation > r->phi0)) return;
  r->phi0 = separation;
  r->nhat_AB_W = n;
  // The contact point from a shape whose support point is unique (the witness); between
  // two flat or ruled shapes, the previous point moved midway between the support planes.
  const Eigen::Vector3d s_A = a.Support(X_WA, n), s_B = b.Support(X_WB, -n);
  if (IsStrictlyConvex(a)) {
    r->p_WC = s_A + 0.5 * separation * n;
  } else if (IsStrictlyConvex(b)) {
    r->p_WC = s_B - 0.5 * separation * n;
  } else {
    r->p_WC += (0.5 * (s_A + s_B).dot(n) - r->p_WC.dot(n)) * n;
  }
}

}  // namespace

SignedDistanceResult ConvexSignedDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                                          const ContactShape& b, const math::RigidTransform& X_WB) {
  CSIM_CHECK(a.type() != ShapeType::kHalfspace && b.type() != ShapeType::kHalfspace);
  Eigen::Vector3d lo_a, hi_a, lo_b, hi_b;
  a.CalcWorldBounds(X_WA, &lo_a, &hi_a);
  b.CalcWorldBounds(X_WB, &lo_b, &hi_b);
  const double size = std::min((hi_a - lo_a).maxCoeff(), (hi_b - lo_b).maxCoeff());
  const double tolerance = kConvexSignedDistanceTolerance * size;
  const GjkResult gjk = CalcGjkDistance(a, X_WA, b, X_WB, tolerance);
  SignedDistanceResult apart;
  apart.phi0 = gjk.upper;  // a distance between points of the shapes: never too deep
  apart.nhat_AB_W = gjk.nhat_AB_W;
  apart.p_WC = 0.5 * (gjk.p_A + gjk.p_B);
  if (!gjk.overlapping && gjk.lower > 0.0 && gjk.upper - gjk.lower <= tolerance) return apart;
  SignedDistanceResult overlap;
  if (CalcPenetration(a, X_WA, b, X_WB, size, tolerance, &overlap)) {
    Ascend(a, X_WA, b, X_WB, &overlap);
    Sharpen(a, X_WA, b, X_WB, 1e-3 * size, tolerance, &overlap);
    return overlap;
  }
  // EPA found the shapes apart (or M flat): GJK's upper bound is the honest answer.
  return gjk.overlapping ? overlap : apart;
}

}  // namespace csim::geometry
