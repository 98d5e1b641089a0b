#include "engine/geometry/fcl_signed_distance.h"

#include <exception>

#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>

#include "engine/common/check.h"

namespace csim::geometry {
namespace {

constexpr double kGjkTolerance = 1e-9;       // [m] distance tolerance of GJK/EPA
constexpr double kWitnessTolerance = 1e-12;  // [m] witnesses closer than this: no direction

fcl::Transform3d ToFcl(const math::RigidTransform& X) {
  fcl::Transform3d tf = fcl::Transform3d::Identity();
  tf.linear() = X.R;
  tf.translation() = X.p;
  return tf;
}

// MPR contact from fcl::collide(); false if MPR finds no overlap.
bool MprContact(const ContactShape& a, const fcl::Transform3d& tf_a, const ContactShape& b,
                const fcl::Transform3d& tf_b, fcl::Contactd* contact) {
  fcl::CollisionRequestd request(1, true);
  fcl::CollisionResultd result;
  fcl::collide(a.fcl_geometry(), tf_a, b.fcl_geometry(), tf_b, request, result);
  if (!result.isCollision()) return false;
  *contact = result.getContact(0);
  return true;
}

// A normal for touching shapes, where the witnesses coincide.
Eigen::Vector3d TouchingNormal(const ContactShape& a, const fcl::Transform3d& tf_a,
                               const ContactShape& b, const fcl::Transform3d& tf_b) {
  fcl::Contactd contact;
  if (MprContact(a, tf_a, b, tf_b, &contact) && contact.normal.norm() > 0.0) {
    return contact.normal.normalized();  // FCL: from o1 (A) to o2 (B)
  }
  const Eigen::Vector3d d = tf_b.translation() - tf_a.translation();
  return d.norm() > 0.0 ? Eigen::Vector3d(d.normalized()) : Eigen::Vector3d::UnitZ();
}

// Fallback when EPA throws: MPR in overlap, plain GJK distance apart.
SignedDistanceResult Fallback(const ContactShape& a, const fcl::Transform3d& tf_a,
                              const ContactShape& b, const fcl::Transform3d& tf_b) {
  SignedDistanceResult out;
  fcl::Contactd contact;
  if (MprContact(a, tf_a, b, tf_b, &contact)) {
    out.phi0 = -contact.penetration_depth;
    out.nhat_AB_W = contact.normal.normalized();
    out.p_WC = contact.pos;
    return out;
  }
  fcl::DistanceRequestd request(true, false, 0.0, 0.0, kGjkTolerance);
  fcl::DistanceResultd result;
  fcl::distance(a.fcl_geometry(), tf_a, b.fcl_geometry(), tf_b, request, result);
  out.phi0 = result.min_distance;
  const Eigen::Vector3d d = result.nearest_points[1] - result.nearest_points[0];
  out.nhat_AB_W = d.norm() > kWitnessTolerance ? Eigen::Vector3d(d.normalized())
                                                : TouchingNormal(a, tf_a, b, tf_b);
  out.p_WC = 0.5 * (result.nearest_points[0] + result.nearest_points[1]);
  return out;
}

}  // namespace

SignedDistanceResult FclSignedDistance(const ContactShape& a, const math::RigidTransform& X_WA,
                                       const ContactShape& b, const math::RigidTransform& X_WB) {
  CSIM_CHECK(a.type() != ShapeType::kHalfspace && b.type() != ShapeType::kHalfspace);
  const fcl::Transform3d tf_a = ToFcl(X_WA), tf_b = ToFcl(X_WB);
  fcl::DistanceRequestd request(true, true, 0.0, 0.0, kGjkTolerance);
  fcl::DistanceResultd result;
  try {
    fcl::distance(a.fcl_geometry(), tf_a, b.fcl_geometry(), tf_b, request, result);
  } catch (const std::exception&) {
    return Fallback(a, tf_a, b, tf_b);
  }
  SignedDistanceResult out;
  out.phi0 = result.min_distance;
  const Eigen::Vector3d& p_A = result.nearest_points[0];
  const Eigen::Vector3d& p_B = result.nearest_points[1];
  const Eigen::Vector3d d = out.phi0 >= 0.0 ? Eigen::Vector3d(p_B - p_A) : Eigen::Vector3d(p_A - p_B);
  out.nhat_AB_W = d.norm() > kWitnessTolerance ? Eigen::Vector3d(d.normalized())
                                                : TouchingNormal(a, tf_a, b, tf_b);
  out.p_WC = 0.5 * (p_A + p_B);
  return out;
}

}  // namespace csim::geometry
