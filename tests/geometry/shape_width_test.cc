// CalcMinimumWidth against each shape's closed form, and a thin box mesh turned in its
// frame, whose width only its principal axes find.

#include "engine/geometry/shape_width.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/math/rotation.h"

namespace csim::geometry {
namespace {

Geometry Shape(ShapeType type, const Eigen::Vector3d& size) {
  Geometry g;
  g.type = type;
  g.size = size;
  return g;
}

TEST_CASE("the least width of each analytic shape", "[shape_width]") {
  CHECK(CalcMinimumWidth(Shape(ShapeType::kSphere, {0.05, 0, 0})) == 0.1);
  CHECK(CalcMinimumWidth(Shape(ShapeType::kBox, {1, 0.02, 3})) == 0.02);
  CHECK(CalcMinimumWidth(Shape(ShapeType::kCylinder, {0.5, 0.2, 0})) == 0.2);  // a disc
  CHECK(CalcMinimumWidth(Shape(ShapeType::kCylinder, {0.05, 2, 0})) == 0.1);   // a rod
  CHECK(CalcMinimumWidth(Shape(ShapeType::kCapsule, {0.05, 2, 0})) == 0.1);
  CHECK(CalcMinimumWidth(Shape(ShapeType::kEllipsoid, {0.3, 0.1, 0.2})) == 0.2);
  CHECK(std::isinf(CalcMinimumWidth(Shape(ShapeType::kHalfspace, {0, 0, 0}))));
}

TEST_CASE("a plate mesh turned in its frame is as thin as the plate", "[shape_width]") {
  // A 1 x 0.6 x 0.01 plate's corners, rotated: no frame axis shows its thickness.
  Geometry g = Shape(ShapeType::kMesh, {0, 0, 0});
  const Eigen::Matrix3d R = math::RotationFromRpy(Eigen::Vector3d(0.4, -0.7, 1.1));
  for (int i = 0; i < 8; ++i)
    g.mesh.vertices.push_back(R * Eigen::Vector3d((i & 1) ? 0.5 : -0.5, (i & 2) ? 0.3 : -0.3,
                                                  (i & 4) ? 0.005 : -0.005));
  CHECK(CalcMinimumWidth(g) == Approx(0.01).epsilon(1e-9));
}

}  // namespace
}  // namespace csim::geometry
