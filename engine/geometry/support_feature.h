#pragma once
// Support features: the part of a convex shape's surface that is extreme in a direction d,
// widened by an angular tolerance. A box whose face normal is within kFeatureSinTolerance
// of d exposes that whole face (4 points), one with an edge nearly perpendicular to d
// exposes the edge (2 points), otherwise a single vertex. Contact manifolds are built by
// clipping the feature of A (along +n) against the feature of B (along -n) and keeping
// the points whose own gap is below the margin, so a generous tolerance only costs a few
// points that are then discarded, while a tight one would make resting boxes rock on a
// single corner.
//
//   shape       polygon (>= 3 points)          segment (2 points)           point
//   box         face, |n_f . d| >= cos tol      edge, 1 axis nearly ⊥ d      vertex
//   mesh        merged face aligned with d      edge nearly ⊥ d              vertex
//   cylinder    cap as a regular kRimPoints-gon side line, axis nearly ⊥ d   rim point
//   capsule     -                               both cap spheres' points     support point
//   sphere, ellipsoid: the support point. Halfspaces have no feature (handled apart).

#include <array>
#include <cmath>

#include <Eigen/Dense>

#include "engine/geometry/contact_shape.h"
#include "engine/math/spatial.h"

namespace csim::geometry {

/// sin of the angular tolerance (about 5.7 degrees) within which a face counts as facing d
/// or an edge / axis counts as perpendicular to d.
constexpr double kFeatureSinTolerance = 0.1;
/// Its cos: a face, or a cylinder's cap, within the tolerance of facing d has |n_f . d| >= it.
inline const double kFeatureCosTolerance =
    std::sqrt(1.0 - kFeatureSinTolerance * kFeatureSinTolerance);
/// Number of points a cylinder cap (a circle) is represented by.
constexpr int kRimPoints = 8;

/// A point, a segment or a convex polygon on a shape's surface, world frame.
struct SupportFeature {
  static constexpr int kMaxPoints = 32;
  int num_points = 0;                            ///< 1, 2 or >= 3
  std::array<Eigen::Vector3d, kMaxPoints> p_W;   ///< [m]; polygons in cyclic order
  void Add(const Eigen::Vector3d& p) { if (num_points < kMaxPoints) p_W[num_points++] = p; }
};

/// The support feature of `shape` at pose X_WG in the unit direction d_W.
/// Precondition: shape is not a halfspace; |d_W| = 1.
void CalcSupportFeature(const ContactShape& shape, const math::RigidTransform& X_WG,
                        const Eigen::Vector3d& d_W, SupportFeature* feature);

}  // namespace csim::geometry
