#pragma once
// Shapes and poses shared by the collision tests (tests/geometry/*_test.cc).

#include <algorithm>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/geometry/mesh_file.h"
#include "engine/geometry/point_contact.h"
#include "engine/geometry/shape.h"
#include "engine/math/rotation.h"
#include "engine/math/spatial.h"

namespace csim::geometry::test {

inline Geometry MakeShape(ShapeType type, const Eigen::Vector3d& size = Eigen::Vector3d::Zero()) {
  Geometry g;
  g.type = type;
  g.size = size;
  return g;
}
inline Geometry Sphere(double r) { return MakeShape(ShapeType::kSphere, {r, 0, 0}); }
inline Geometry Box(double x, double y, double z) { return MakeShape(ShapeType::kBox, {x, y, z}); }
inline Geometry Cylinder(double r, double length) {
  return MakeShape(ShapeType::kCylinder, {r, length, 0});
}
inline Geometry Capsule(double r, double length) {
  return MakeShape(ShapeType::kCapsule, {r, length, 0});
}
inline Geometry Ellipsoid(double a, double b, double c) {
  return MakeShape(ShapeType::kEllipsoid, {a, b, c});
}
inline Geometry Halfspace() { return MakeShape(ShapeType::kHalfspace); }

/// The unit cube of tests/data/unit_cube.obj scaled by `edge` and centred on its frame.
inline Geometry MeshCube(double edge) {
  Geometry g = MakeShape(ShapeType::kMesh);
  std::string error;
  const bool ok = ReadMeshFile(std::string(CSIM_SOURCE_DIR) + "/tests/data/unit_cube.obj",
                               Eigen::Vector3d::Constant(edge), &g.mesh, &error);
  if (!ok) throw std::runtime_error(error);
  for (Eigen::Vector3d& v : g.mesh.vertices) v -= Eigen::Vector3d::Constant(0.5 * edge);
  return g;
}

inline math::RigidTransform At(double x, double y, double z) {
  math::RigidTransform X;
  X.p = Eigen::Vector3d(x, y, z);
  return X;
}
inline math::RigidTransform Rotated(const Eigen::Vector3d& axis, double angle,
                                    const Eigen::Vector3d& p) {
  math::RigidTransform X;
  X.R = math::RotationAboutAxis(axis.normalized(), angle);
  X.p = p;
  return X;
}

/// Contacts sorted by position (x, then y, then z; coordinates within 1e-9 m count as
/// equal), for order-free comparisons.
inline void SortByPosition(std::vector<PointContact>* contacts) {
  std::sort(contacts->begin(), contacts->end(), [](const PointContact& a, const PointContact& b) {
    for (int i = 0; i < 3; ++i) {
      if (a.p_WC[i] < b.p_WC[i] - 1e-9) return true;
      if (a.p_WC[i] > b.p_WC[i] + 1e-9) return false;
    }
    return false;
  });
}

}  // namespace csim::geometry::test
