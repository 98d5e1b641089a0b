#include "engine/geometry/signed_distance.h"

#include <algorithm>
#include <cmath>

namespace csim::geometry {
namespace {

double Clamp01(double x) { return std::min(1.0, std::max(0.0, x)); }

// Two spheres whose centres are joined by a known unit direction (from A to B).
SignedDistanceResult SpheresAlong(const Eigen::Vector3d& p_WA, double r_a,
                                  const Eigen::Vector3d& p_WB, double r_b,
                                  const Eigen::Vector3d& nhat) {
  SignedDistanceResult result;
  result.nhat_AB_W = nhat;
  result.phi0 = (p_WB - p_WA).dot(nhat) - r_a - r_b;
  const Eigen::Vector3d witness_a = p_WA + r_a * nhat;
  const Eigen::Vector3d witness_b = p_WB - r_b * nhat;
  result.p_WC = 0.5 * (witness_a + witness_b);
  return result;
}

// Any unit vector perpendicular to the unit vector a (deterministic).
Eigen::Vector3d Perpendicular(const Eigen::Vector3d& a) {
  const Eigen::Vector3d seed =
      std::abs(a.x()) < 0.57 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  return a.cross(seed).normalized();
}

}  // namespace

SignedDistanceResult SphereSphere(const Eigen::Vector3d& p_WA, double r_a,
                                  const Eigen::Vector3d& p_WB, double r_b) {
  const Eigen::Vector3d d = p_WB - p_WA;
  const double dist = d.norm();
  const Eigen::Vector3d nhat = dist > 0.0 ? Eigen::Vector3d(d / dist) : Eigen::Vector3d::UnitZ();
  return SpheresAlong(p_WA, r_a, p_WB, r_b, nhat);
}

SignedDistanceResult SphereBox(const Eigen::Vector3d& p_WA, double r_a,
                               const math::RigidTransform& X_WB,
                               const Eigen::Vector3d& size_b) {
  const Eigen::Vector3d h = 0.5 * size_b;
  const Eigen::Vector3d c = X_WB.Inverse() * p_WA;  // sphere centre in the box frame
  const Eigen::Vector3d q = c.cwiseMax(-h).cwiseMin(h);  // closest box point
  SignedDistanceResult result;
  Eigen::Vector3d n_box;  // unit normal from the box towards the sphere, box frame
  Eigen::Vector3d w_box;  // box witness point, box frame
  double dist;            // signed distance of the centre to the box surface
  if ((c - q).norm() > 0.0) {
    n_box = (c - q).normalized();
    w_box = q;
    dist = (c - q).norm();
  } else {  // centre inside: leave through the face of least depth
    int axis = 0;
    for (int i = 1; i < 3; ++i) {
      if (h[i] - std::abs(c[i]) < h[axis] - std::abs(c[axis])) axis = i;
    }
    const double side = c[axis] < 0.0 ? -1.0 : 1.0;
    n_box = side * Eigen::Vector3d::Unit(axis);
    w_box = c;
    w_box[axis] = side * h[axis];
    dist = -(h[axis] - std::abs(c[axis]));
  }
  result.nhat_AB_W = -(X_WB.R * n_box);  // from the sphere A into the box B
  result.phi0 = dist - r_a;
  const Eigen::Vector3d witness_a = p_WA + r_a * result.nhat_AB_W;
  result.p_WC = 0.5 * (witness_a + X_WB * w_box);
  return result;
}

SignedDistanceResult SphereCapsule(const Eigen::Vector3d& p_WA, double r_a,
                                   const math::RigidTransform& X_WB, double r_b, double len_b) {
  const Eigen::Vector3d axis = X_WB.R.col(2);
  const Eigen::Vector3d e0 = X_WB.p - 0.5 * len_b * axis;
  const double t = len_b > 0.0 ? Clamp01((p_WA - e0).dot(axis) / len_b) : 0.5;
  const Eigen::Vector3d p_WQ = e0 + t * len_b * axis;  // closest point of B's segment
  const Eigen::Vector3d d = p_WQ - p_WA;
  const Eigen::Vector3d nhat = d.norm() > 0.0 ? Eigen::Vector3d(d.normalized())
                                              : Eigen::Vector3d(-X_WB.R.col(0));
  return SpheresAlong(p_WA, r_a, p_WQ, r_b, nhat);
}

SignedDistanceResult CapsuleCapsule(const math::RigidTransform& X_WA, double r_a, double len_a,
                                    const math::RigidTransform& X_WB, double r_b, double len_b) {
  const Eigen::Vector3d a = X_WA.R.col(2), b = X_WB.R.col(2);
  const Eigen::Vector3d p0 = X_WA.p - 0.5 * len_a * a, p1 = X_WA.p + 0.5 * len_a * a;
  const Eigen::Vector3d q0 = X_WB.p - 0.5 * len_b * b, q1 = X_WB.p + 0.5 * len_b * b;
  double s, t;
  ClosestPointsOnSegments(p0, p1, q0, q1, &s, &t);
  const Eigen::Vector3d pa = p0 + s * (p1 - p0), pb = q0 + t * (q1 - q0);
  Eigen::Vector3d nhat;
  if ((pb - pa).norm() > 0.0) {
    nhat = (pb - pa).normalized();
  } else {  // the axes intersect
    nhat = a.cross(b).norm() > 1e-12 ? Eigen::Vector3d(a.cross(b).normalized()) : Perpendicular(a);
    if (nhat.dot(X_WB.p - X_WA.p) < 0.0) nhat = -nhat;
  }
  return SpheresAlong(pa, r_a, pb, r_b, nhat);
}

void ClosestPointsOnSegments(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                             const Eigen::Vector3d& q0, const Eigen::Vector3d& q1, double* s,
                             double* t) {
  // Minimise |p0 + s d1 - q0 - t d2|^2 over the unit square: the stationary point of the
  // quadratic, clamped, then each parameter re-solved against the other's clamped value.
  const Eigen::Vector3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  if (a <= 0.0 && e <= 0.0) { *s = *t = 0.0; return; }
  if (a <= 0.0) { *s = 0.0; *t = Clamp01(f / e); return; }
  const double c = d1.dot(r);
  if (e <= 0.0) { *t = 0.0; *s = Clamp01(-c / a); return; }
  const double b = d1.dot(d2);
  const double denom = a * e - b * b;  // >= 0; zero when parallel
  *s = denom > 1e-14 * a * e ? Clamp01((b * f - c * e) / denom) : 0.0;
  *t = (b * *s + f) / e;
  if (*t < 0.0) {
    *t = 0.0;
    *s = Clamp01(-c / a);
  } else if (*t > 1.0) {
    *t = 1.0;
    *s = Clamp01((b - c) / a);
  }
}

}  // namespace csim::geometry
