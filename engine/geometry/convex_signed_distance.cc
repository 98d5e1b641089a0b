#include "engine/geometry/convex_signed_distance.h"

#include <algorithm>

#include "engine/common/check.h"
#include "engine/geometry/gjk_distance.h"
#include "engine/geometry/penetration_depth.h"

namespace csim::geometry {

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
    // The signed distance lies between this separation and EPA's bound. Where they are
    // still apart (EPA stopped early on a hard pair, and the local steps or the bound
    // failed to close the gap), the bound: never deeper than the truth, so the contact
    // never pushes harder than it should.
    if (upper - overlap.phi0 > tolerance) overlap.phi0 = upper;
    return overlap;
  }
  // EPA found the shapes apart (or M flat): GJK's upper bound is the honest answer.
  return gjk.overlapping ? overlap : apart;
}

}  // namespace csim::geometry
