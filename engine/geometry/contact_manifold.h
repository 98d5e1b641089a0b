#pragma once
// Multi-point contact manifolds for flat contact, so that resting boxes, cylinders and
// stacks are supported by their whole contact patch instead of rocking on one point.
//
// Method (the reference/incident-face clipping of Gottschalk-style box-box manifolds,
// generalised to any pair of support features): project both features onto the plane
// normal to n, intersect them there (polygon-polygon by Sutherland-Hodgman, segment-polygon
// by parametric clipping, parallel segments by overlapping intervals), lift each point of
// the intersection back onto both features along n, and keep the points whose own gap
// phi = (p_B - p_A) . n is below the margin. Each point therefore carries its exact gap,
// which is what keeps a slightly tilted box from creeping: its high corners simply drop out.
// A manifold holds at most kMaxPoints; larger sets keep the deepest point and then, one by
// one, the point farthest from those kept (deterministic, ties to the lower index).

#include <array>

#include <Eigen/Dense>

#include "engine/geometry/support_feature.h"

namespace csim::geometry {

/// One point of a manifold: the midpoint C between the surfaces and its signed gap.
struct ManifoldPoint {
  Eigen::Vector3d p_WC = Eigen::Vector3d::Zero();  ///< [m], world
  double phi0 = 0.0;                               ///< [m], < 0 overlap
};

/// The contact points of one pair, all sharing the normal nhat_AB_W (A into B).
struct ContactManifold {
  static constexpr int kMaxPoints = 8;
  int num_points = 0;
  std::array<ManifoldPoint, kMaxPoints> points;
};

/// Clips feature_a (A's support along +nhat_AB_W) against feature_b (B's support along
/// -nhat_AB_W) and writes the points with phi0 < margin to `manifold`.
/// @returns false if the features do not define a patch (either is a single point, or two
///          segments that are not parallel); the caller then uses its single deepest point.
bool ClipFeatures(const SupportFeature& feature_a, const SupportFeature& feature_b,
                  const Eigen::Vector3d& nhat_AB_W, double margin, ContactManifold* manifold);

/// Contacts of feature_b (B's support along -nhat_AB_W) with the plane through p_WP with
/// unit normal nhat_AB_W pointing out of the solid A (a halfspace) into B: every feature
/// point whose height above the plane is below the margin.
void PlaneFeatureContacts(const Eigen::Vector3d& p_WP, const Eigen::Vector3d& nhat_AB_W,
                          const SupportFeature& feature_b, double margin,
                          ContactManifold* manifold);

}  // namespace csim::geometry
