#include "engine/geometry/fcl_signed_distance.h"

#include <algorithm>
#include <exception>
#include <limits>

#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>

#include "engine/common/check.h"

namespace csim::geometry {
namespace {

constexpr double kGjkTolerance = 1e-10;    // [m] GJK distance tolerance
constexpr double kTouching = 1e-10;        // [m] gaps below this have no reliable direction
constexpr int kMaxRefinements = 8;         // translated-GJK iterations in overlap
constexpr double kDirectionTolerance = 1e-10;  // |n_{k+1} - n_k| at the fixed point

fcl::Transform3d ToFcl(const math::RigidTransform& X) {
  fcl::Transform3d tf = fcl::Transform3d::Identity();
  tf.linear() = X.R;
  tf.translation() = X.p;
  return tf;
}

// Unsigned GJK distance; false if the shapes overlap or touch (or GJK fails).
bool GjkDistance(const ContactShape& a, const fcl::Transform3d& tf_a, const ContactShape& b,
                 const fcl::Transform3d& tf_b, double* distance, Eigen::Vector3d* p_A,
                 Eigen::Vector3d* p_B) {
  fcl::DistanceRequestd request(true, false, 0.0, 0.0, kGjkTolerance);
  fcl::DistanceResultd result;
  try {
    fcl::distance(a.fcl_geometry(), tf_a, b.fcl_geometry(), tf_b, request, result);
  } catch (const std::exception&) {
    return false;
  }
  *distance = result.min_distance;
  *p_A = result.nearest_points[0];
  *p_B = result.nearest_points[1];
  return *distance > kTouching && (*p_B - *p_A).norm() > 0.5 * kTouching;
}

// MPR's penetration depth and normal (from A into B); a centre-line guess if MPR misses.
void MprGuess(const ContactShape& a, const fcl::Transform3d& tf_a, const ContactShape& b,
              const fcl::Transform3d& tf_b, double* depth, Eigen::Vector3d* nhat) {
  fcl::CollisionRequestd request(1, true);
  fcl::CollisionResultd result;
  fcl::collide(a.fcl_geometry(), tf_a, b.fcl_geometry(), tf_b, request, result);
  if (result.isCollision() && result.getContact(0).normal.norm() > 0.0) {
    *depth = std::max(0.0, result.getContact(0).penetration_depth);
    *nhat = result.getContact(0).normal.normalized();  // FCL: from o1 (A) to o2 (B)
    return;
  }
  const Eigen::Vector3d d = tf_b.translation() - tf_a.translation();
  *depth = 0.0;
  *nhat = d.norm() > 0.0 ? Eigen::Vector3d(d.normalized()) : Eigen::Vector3d::UnitZ();
}

// Overlapping (or touching) pair: translated-GJK refinement of MPR's guess (see header).
SignedDistanceResult Penetration(const ContactShape& a, const fcl::Transform3d& tf_a,
                                 const ContactShape& b, const fcl::Transform3d& tf_b,
                                 double clearance) {
  double depth;
  Eigen::Vector3d n;
  MprGuess(a, tf_a, b, tf_b, &depth, &n);
  SignedDistanceResult best;
  best.phi0 = -std::numeric_limits<double>::infinity();
  best.nhat_AB_W = n;
  best.p_WC = 0.5 * (tf_a.translation() + tf_b.translation());
  double push = depth + clearance;
  for (int k = 0, attempts = 0; k < kMaxRefinements && attempts < 4 * kMaxRefinements; ++attempts) {
    fcl::Transform3d moved = tf_b;
    moved.translation() += push * n;
    double d;
    Eigen::Vector3d p_A, p_B;
    if (!GjkDistance(a, tf_a, b, moved, &d, &p_A, &p_B)) {  // not out yet: push further
      push = 2.0 * push + clearance;
      continue;
    }
    ++k;
    const Eigen::Vector3d n_next = (p_B - p_A).normalized();
    const double separation = d - push * n.dot(n_next);
    if (separation > best.phi0) {
      best.phi0 = separation;
      best.nhat_AB_W = n_next;
      best.p_WC = 0.5 * (p_A + p_B - push * n);
    }
    if ((n_next - n).norm() < kDirectionTolerance) break;
    n = n_next;
    push = std::max(0.0, -separation) + clearance;
  }
  if (best.phi0 == -std::numeric_limits<double>::infinity()) best.phi0 = -depth;
  return best;
}

}  // namespace

SignedDistanceResult FclSignedDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                                       const ContactShape& b, const math::RigidTransform& X_WB) {
  CSIM_CHECK(a.type() != ShapeType::kHalfspace && b.type() != ShapeType::kHalfspace);
  const fcl::Transform3d tf_a = ToFcl(X_WA), tf_b = ToFcl(X_WB);
  SignedDistanceResult out;
  Eigen::Vector3d p_A, p_B;
  if (GjkDistance(a, tf_a, b, tf_b, &out.phi0, &p_A, &p_B)) {
    out.nhat_AB_W = (p_B - p_A).normalized();
    out.p_WC = 0.5 * (p_A + p_B);
    return out;
  }
  // Clearance of the translated queries: small against the shapes, large against GJK's
  // tolerance, so that the separated pair keeps the overlapping pair's contact features.
  Eigen::Vector3d lo_a, hi_a, lo_b, hi_b;
  a.CalcWorldBounds(X_WA, &lo_a, &hi_a);
  b.CalcWorldBounds(X_WB, &lo_b, &hi_b);
  const double size = std::min((hi_a - lo_a).maxCoeff(), (hi_b - lo_b).maxCoeff());
  return Penetration(a, tf_a, b, tf_b, 1e-4 * size + 1e-8);
}

}  // namespace csim::geometry
