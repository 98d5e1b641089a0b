#pragma once
// An orthonormal basis of the plane normal to a unit vector, chosen deterministically from
// the vector alone (like Drake's contact frame), for planar (2D) computations.

#include <cmath>

#include <Eigen/Dense>

namespace csim::geometry {

/// Unit vectors u, v with u x v = n, n . u = n . v = 0, for a unit vector n.
inline void CalcPlaneBasis(const Eigen::Vector3d& n, Eigen::Vector3d* u, Eigen::Vector3d* v) {
  const Eigen::Vector3d seed =
      std::abs(n.x()) < 0.57 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  *u = seed.cross(n).normalized();
  *v = n.cross(*u);
}

}  // namespace csim::geometry
