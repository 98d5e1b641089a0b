#include "engine/geometry/shape_width.h"

#include <algorithm>
#include <limits>

namespace csim::geometry {
namespace {

/// max - min of d . p over the mesh's vertices, for a unit direction d.
double WidthAlong(const ConvexMesh& mesh, const Eigen::Vector3d& d) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Eigen::Vector3d& p : mesh.vertices) {
    lo = std::min(lo, d.dot(p));
    hi = std::max(hi, d.dot(p));
  }
  return hi - lo;
}

double MeshWidth(const ConvexMesh& mesh) {
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  const double n = static_cast<double>(mesh.vertices.size());
  for (const Eigen::Vector3d& p : mesh.vertices) mean += p / n;
  Eigen::Matrix3d spread = Eigen::Matrix3d::Zero();
  for (const Eigen::Vector3d& p : mesh.vertices) spread += (p - mean) * (p - mean).transpose();
  const Eigen::Matrix3d axes =
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(spread).eigenvectors();
  double width = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    width = std::min(width, WidthAlong(mesh, Eigen::Vector3d::Unit(i)));
    width = std::min(width, WidthAlong(mesh, axes.col(i)));
  }
  return width;
}

}  // namespace

double CalcMinimumWidth(const Geometry& geometry) {
  const Eigen::Vector3d& s = geometry.size;
  switch (geometry.type) {
    case ShapeType::kSphere: return 2 * s[0];
    case ShapeType::kBox: return s.minCoeff();
    case ShapeType::kCylinder: return std::min(2 * s[0], s[1]);
    case ShapeType::kCapsule: return 2 * s[0];
    case ShapeType::kEllipsoid: return 2 * s.minCoeff();
    case ShapeType::kMesh: return MeshWidth(geometry.mesh);
    case ShapeType::kHalfspace: break;
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace csim::geometry
