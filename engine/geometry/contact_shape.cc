#include "engine/geometry/contact_shape.h"

#include <cmath>
#include <limits>

#include "engine/common/check.h"

namespace csim::geometry {
namespace {

// sign(x) with sign(0) = +1, so ties pick one side deterministically.
double SignOrPlus(double x) { return x < 0.0 ? -1.0 : 1.0; }

}  // namespace

ContactShape::ContactShape(const Geometry& geometry)
    : type_(geometry.type), size_(geometry.size) {
  if (type_ == ShapeType::kBox) polytope_ = MakeBoxPolytope(size_);
  if (type_ == ShapeType::kMesh) {
    polytope_ = MakeMeshPolytope(geometry.mesh);
    Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
    Eigen::Vector3d hi = -lo;
    for (const Eigen::Vector3d& v : polytope_.vertices) {
      lo = lo.cwiseMin(v);
      hi = hi.cwiseMax(v);
    }
    mesh_center_ = 0.5 * (lo + hi);
    mesh_half_ = 0.5 * (hi - lo);
  }
}

Eigen::Vector3d ContactShape::SupportLocal(const Eigen::Vector3d& d) const {
  switch (type_) {
    case ShapeType::kSphere:
      return d.norm() > 0.0 ? Eigen::Vector3d(radius() * d.normalized())
                            : Eigen::Vector3d(0, 0, -radius());
    case ShapeType::kBox:
      return 0.5 * Eigen::Vector3d(SignOrPlus(d.x()) * size_.x(), SignOrPlus(d.y()) * size_.y(),
                                   SignOrPlus(d.z()) * size_.z());
    case ShapeType::kCylinder: {
      const Eigen::Vector2d d_xy(d.x(), d.y());
      const Eigen::Vector2d rim =
          d_xy.norm() > 0.0 ? Eigen::Vector2d(radius() * d_xy.normalized()) : Eigen::Vector2d(radius(), 0);
      return {rim.x(), rim.y(), SignOrPlus(d.z()) * 0.5 * length()};
    }
    case ShapeType::kCapsule: {
      const Eigen::Vector3d cap(0, 0, SignOrPlus(d.z()) * 0.5 * length());
      return cap + (d.norm() > 0.0 ? Eigen::Vector3d(radius() * d.normalized())
                                   : Eigen::Vector3d(0, 0, -radius()));
    }
    case ShapeType::kEllipsoid: {
      // Maximiser of d.p on p^T D^-2 p = 1 (D = diag(a, b, c)): p = D^2 d / |D d|.
      const Eigen::Vector3d Dd = size_.cwiseProduct(d);
      if (Dd.norm() == 0.0) return {0, 0, -size_.z()};
      return size_.cwiseProduct(Dd) / Dd.norm();
    }
    case ShapeType::kMesh: {
      int best = 0;  // first maximiser: deterministic
      for (int i = 1; i < static_cast<int>(polytope_.vertices.size()); ++i) {
        if (polytope_.vertices[i].dot(d) > polytope_.vertices[best].dot(d)) best = i;
      }
      return polytope_.vertices[best];
    }
    case ShapeType::kHalfspace: break;
  }
  CSIM_CHECK(false && "Support() of a halfspace");
  return Eigen::Vector3d::Zero();
}

Eigen::Vector3d ContactShape::Support(const math::RigidTransform& X_WG,
                                      const Eigen::Vector3d& d_W) const {
  return X_WG * SupportLocal(X_WG.R.transpose() * d_W);
}

void ContactShape::CalcWorldBounds(const math::RigidTransform& X_WG, Eigen::Vector3d* lo,
                                   Eigen::Vector3d* hi) const {
  const Eigen::Matrix3d& R = X_WG.R;
  Eigen::Vector3d half = Eigen::Vector3d::Zero();
  switch (type_) {
    case ShapeType::kSphere: half.setConstant(radius()); break;
    case ShapeType::kBox: half = 0.5 * R.cwiseAbs() * size_; break;
    case ShapeType::kEllipsoid: half = (R * size_.asDiagonal()).rowwise().norm(); break;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
      for (int i = 0; i < 3; ++i) {  // axis a = R.col(2); disk of radius r normal to a
        const double a_i = R(i, 2);
        const double disk = std::sqrt(std::max(0.0, 1.0 - a_i * a_i));
        half[i] = 0.5 * length() * std::abs(a_i) +
                  radius() * (type_ == ShapeType::kCapsule ? 1.0 : disk);
      }
      break;
    case ShapeType::kMesh: {
      lo->setConstant(std::numeric_limits<double>::infinity());
      hi->setConstant(-std::numeric_limits<double>::infinity());
      for (const Eigen::Vector3d& v : polytope_.vertices) {
        const Eigen::Vector3d p = X_WG * v;
        *lo = lo->cwiseMin(p);
        *hi = hi->cwiseMax(p);
      }
      return;
    }
    case ShapeType::kHalfspace:
      half.setConstant(std::numeric_limits<double>::infinity());
      break;
  }
  *lo = X_WG.p - half;
  *hi = X_WG.p + half;
}

void ContactShape::CalcLooseWorldBounds(const math::RigidTransform& X_WG, Eigen::Vector3d* lo,
                                        Eigen::Vector3d* hi) const {
  if (type_ != ShapeType::kMesh) {
    CalcWorldBounds(X_WG, lo, hi);
    return;
  }
  const Eigen::Vector3d center = X_WG * mesh_center_;
  const Eigen::Vector3d half = X_WG.R.cwiseAbs() * mesh_half_;
  *lo = center - half;
  *hi = center + half;
}

}  // namespace csim::geometry
