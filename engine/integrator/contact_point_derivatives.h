#pragma once
// Closed-form derivatives of a pair's contact points (point, normal, phi0) along its two
// bodies' pose tangents, where the narrow phase is one of material points or of sets fixed in
// the bodies, for the forward sensitivities' pairwise rule (pairwise_contact_derivatives.h,
// docs/design/sensitivities.md §6.3). Each form follows its narrow phase's own construction:
// - kOnHalfspace: a box, mesh, sphere or capsule on a halfspace of the world
//   (geometry::PlaneFeatureContacts): each point the midpoint of a support point p_O and its
//   projection on the plane, p_O + r n a material point (a vertex, a sphere's or cap's centre);
// - kCylinderOnHalfspace: a cylinder on its side or tilted on one rim
//   (geometry::CylinderFeature): the rims' support points, which slide along the rims as the
//   axis turns;
// - kSphereSphere, kSphereBox (its centre outside): geometry::SphereSphere, SphereBox;
// - kBoxBox: every manifold point the crossing of a set fixed in each box (a vertex, an edge's
//   line, a face's plane) with the normal's line, n SAT's face normal or edges' cross product.
// Why closed forms: differencing a pair's narrow phase costs two narrow phases per column and
// pair; these cost a few products. Each is checked against the differenced narrow phase in
// tests/integrator/pairwise_contact_derivatives_test.cc.

#include <Eigen/Dense>

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/point_contact.h"
#include "engine/math/spatial.h"

namespace csim::integrator {

/// A contact point's derivative along a direction: of its point [m], unit normal and phi0
/// [m] (per unit of the direction's step).
struct ContactPointDerivative {
  Eigen::Vector3d p = Eigen::Vector3d::Zero(), n = Eigen::Vector3d::Zero();
  double phi0 = 0.0;
};

/// Which closed form a pair's points take; kDifferenced: none.
enum class ContactPointForm {
  kDifferenced, kOnHalfspace, kCylinderOnHalfspace, kSphereSphere, kSphereBox, kBoxBox };

/// A pair's form and its parameters.
struct PairForm {
  ContactPointForm form = ContactPointForm::kDifferenced;
  int side = 0;         ///< on a halfspace: the halfspace's (0: A, 1: B); kSphereBox: the sphere's
  double radius = 0.0;  ///< kOnHalfspace: the other shape's rounding (sphere, capsule) [m]
};

/// The form of the pair of shapes (a, b); a_fixed, b_fixed: that side has no velocities (the
/// halfspace forms need the halfspace fixed in the world).
PairForm ClosedFormOf(const geometry::ContactShape& a, bool a_fixed,
                      const geometry::ContactShape& b, bool b_fixed);

/// One side of a pair as its points' derivatives read it, at the nominal poses.
struct PairSide {
  const geometry::ContactShape* shape = nullptr;
  math::RigidTransform X_WG;                     ///< the geometry's pose, world
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();  ///< its body's origin, world [m]
  /// Its body's pose tangent (d theta, d o) in world axes; zero for a side without velocities.
  Eigen::Matrix<double, 6, 1> tangent = Eigen::Matrix<double, 6, 1>::Zero();
};

/// The motion of a material point p of `side` along its tangent: d o + d theta x (p - o).
inline Eigen::Vector3d MaterialPointMotion(const PairSide& side, const Eigen::Vector3d& p) {
  return side.tangent.tail<3>() + side.tangent.head<3>().cross(p - side.origin);
}

/// The derivatives d[0, count) of the pair's nominal points contacts[0, count) (its manifold,
/// in order; normals from side 0 into side 1) under `form`; false where the closed form does
/// not hold there (a sphere's centre inside the box, a cylinder on its cap, boxes apart across
/// a corner, a box point on sets that do not cross in a point), and the pair is then to be
/// differenced. Never allocates.
bool ClosedFormPointDerivatives(const PairForm& form, const PairSide side[2],
                                const geometry::PointContact* contacts, int count,
                                ContactPointDerivative* dpoint);

}  // namespace csim::integrator
