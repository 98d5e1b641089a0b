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
// True if it ends at its fixed point (the direction no longer moves).
bool Sharpen(const ContactShape& a, const math::RigidTransform& X_WA, const ContactShape& b,
             const math::RigidTransform& X_WB, double clearance, double tolerance,
             SignedDistanceResult* r) {
  for (int k = 0; k < kMaxSharpenings; ++k) {
    const Eigen::Vector3d n = r->nhat_AB_W;
    const double push = std::max(0.0, -r->phi0) + clearance;
    math::RigidTransform moved = X_WB;
    moved.p += push * n;
    const GjkResult gjk = CalcGjkDistance(a, X_WA, b, moved, 1e-3 * tolerance);
    if (gjk.overlapping || !(gjk.lower > 0.0)) return false;
    const double separation = gjk.lower - push * n.dot(gjk.nhat_AB_W);
    const bool fixed_point = (gjk.nhat_AB_W - n).norm() <= 1e-9;
    if (!(separation > r->phi0)) return fixed_point;
    const double gain = separation - r->phi0;
    r->phi0 = separation;
    r->nhat_AB_W = gjk.nhat_AB_W;
    r->p_WC = 0.5 * (gjk.p_A + gjk.p_B - push * n);
    if (gain <= 1e-3 * tolerance) return fixed_point;
  }
  return false;
}

bool IsStrictlyConvex(const ContactShape& s) {
  return s.type() == ShapeType::kSphere || s.type() == ShapeType::kEllipsoid;
}

// Ascends sep(n) = -h_A(n) - h_B(-n) on the sphere from the result's normal by BFGS in a
// chart of the tangent plane, n(x) = (n0 + U x) / |n0 + U x|, with backtracking line
// search; the gradient of sep is the support difference s_B(-n) - s_A(n). Converges fast
// where both supports are smooth (two ellipsoids, even elongated, whose overlaps EPA's
// storage may not resolve) and stops at a ridge, which Sharpen then handles. Accepted only
// when it improves. True if it ends at a stationary point of sep (a smooth optimum).
bool Ascend(const ContactShape& a, const math::RigidTransform& X_WA, const ContactShape& b,
            const math::RigidTransform& X_WB, SignedDistanceResult* r) {
  const Eigen::Vector3d n0 = r->nhat_AB_W;
  Eigen::Matrix<double, 3, 2> U;
  {
    const Eigen::Vector3d seed =
        std::abs(n0.x()) < 0.6 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
    U.col(0) = n0.cross(seed).normalized();
    U.col(1) = n0.cross(U.col(0));
  }
  // F(x) = sep(n(x)) and its gradient in x.
  auto evaluate = [&](const Eigen::Vector2d& x, Eigen::Vector2d* grad) {
    const Eigen::Vector3d m = n0 + U * x;
    const double length = m.norm();
    const Eigen::Vector3d n = m / length;
    const Eigen::Vector3d g = b.Support(X_WB, -n) - a.Support(X_WA, n);
    const double f = n.dot(g);
    *grad = U.transpose() * ((g - f * n) / length);
    return f;
  };
  Eigen::Vector2d x = Eigen::Vector2d::Zero(), grad;
  double separation = evaluate(x, &grad);
  Eigen::Matrix2d H = Eigen::Matrix2d::Identity() *
      (1.0 / std::max((b.Support(X_WB, -n0) - a.Support(X_WA, n0)).norm(), 1e-300));
  for (int iteration = 0; iteration < 50 && grad.norm() > 0.0; ++iteration) {
    Eigen::Vector2d step = H * grad;  // ascent direction
    if (!(step.dot(grad) > 0.0)) {
      H = Eigen::Matrix2d::Identity() * (step.norm() / grad.norm());
      step = H * grad;
    }
    Eigen::Vector2d grad_next;
    double f_next = separation;
    double t = 1.0;
    bool improved = false;
    for (int k = 0; k < 40 && !improved; ++k, t *= 0.5) {
      f_next = evaluate(x + t * step, &grad_next);
      improved = f_next > separation;
    }
    if (!improved) break;
    const Eigen::Vector2d s_k = (t * 2.0) * step;  // the accepted step (t was halved once more)
    const Eigen::Vector2d y_k = -(grad_next - grad);  // gradient change of -F
    x += s_k;
    separation = f_next;
    grad = grad_next;
    const double sy = s_k.dot(y_k);
    if (sy > 0.0) {  // BFGS update of the inverse Hessian of -F
      const Eigen::Matrix2d V = Eigen::Matrix2d::Identity() - (s_k * y_k.transpose()) / sy;
      H = V * H * V.transpose() + (s_k * s_k.transpose()) / sy;
    }
    if (s_k.norm() < 1e-13) break;
  }
  const Eigen::Vector3d n = (n0 + U * x).normalized();
  const bool stationary =
      grad.norm() <= 1e-9 * (b.Support(X_WB, -n) - a.Support(X_WA, n)).norm();
  if (!(separation > r->phi0)) return stationary;
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
  return stationary;
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
  double upper;
  if (CalcPenetration(a, X_WA, b, X_WB, size, tolerance, &overlap, &upper)) {
    Ascend(a, X_WA, b, X_WB, &overlap);
    Sharpen(a, X_WA, b, X_WB, 1e-3 * size, tolerance, &overlap);
    // The signed distance lies between this separation and EPA's bound. Where they are
    // still apart (EPA stopped early on a hard pair; a local step may also have settled on
    // a lesser optimum), the bound: never deeper than the truth, so the contact never
    // pushes harder than it should.
    if (upper - overlap.phi0 > tolerance) overlap.phi0 = upper;
    return overlap;
  }
  // EPA found the shapes apart (or M flat): GJK's upper bound is the honest answer.
  return gjk.overlapping ? overlap : apart;
}

}  // namespace csim::geometry
