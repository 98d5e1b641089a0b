#include "engine/geometry/shape.h"

namespace csim::geometry {

const char* ShapeTypeName(ShapeType type) {
  switch (type) {
    case ShapeType::kSphere: return "sphere";
    case ShapeType::kBox: return "box";
    case ShapeType::kCylinder: return "cylinder";
    case ShapeType::kCapsule: return "capsule";
    case ShapeType::kEllipsoid: return "ellipsoid";
    case ShapeType::kHalfspace: return "halfspace";
    case ShapeType::kMesh: return "mesh";
  }
  return "unknown";
}

}  // namespace csim::geometry
