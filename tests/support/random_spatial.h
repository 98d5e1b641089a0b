#pragma once
// Random vectors, rotations, transforms and box inertias for the spatial-algebra tests
// (tests/math/spatial_test.cc, rigid_body_inertia_test.cc), from a seeded engine so that
// every run draws the same values.

#include <random>

#include <Eigen/Dense>

#include "engine/math/rotation.h"
#include "engine/math/spatial.h"

namespace csim::test {

struct RandomSpatial {
  explicit RandomSpatial(unsigned seed) : engine(seed) {}
  std::mt19937 engine;
  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(engine);
  }
  Eigen::Vector3d Vector(double scale) {
    return Eigen::Vector3d(Uniform(-scale, scale), Uniform(-scale, scale), Uniform(-scale, scale));
  }
  math::Vector6 Spatial(double scale) {
    math::Vector6 s;
    s << Vector(scale), Vector(scale);
    return s;
  }
  Eigen::Matrix3d Rotation() { return math::RotationFromRpy(Vector(3.1)); }
  math::RigidTransform Transform() { return {Rotation(), Vector(2.0)}; }
  // Rotational inertia about the centre of mass of a random box of mass m, turned.
  Eigen::Matrix3d BoxInertia(double m) {
    const Eigen::Vector3d s(Uniform(0.1, 1), Uniform(0.1, 1), Uniform(0.1, 1));
    const Eigen::Vector3d d =
        m / 12 * Eigen::Vector3d(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(),
                                 s.x() * s.x() + s.y() * s.y());
    const Eigen::Matrix3d R = Rotation();
    return R * d.asDiagonal() * R.transpose();
  }
};

}  // namespace csim::test
