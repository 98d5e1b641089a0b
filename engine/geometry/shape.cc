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

bool HasContactSurface(const HydroelasticProperties& a, ShapeType type_a,
                       const HydroelasticProperties& b, ShapeType type_b) {
  if (a.compliance == Compliance::kNone || b.compliance == Compliance::kNone) return false;
  if (a.compliance != Compliance::kCompliant && b.compliance != Compliance::kCompliant)
    return false;  // rigid against rigid: point contact
  return !(type_a == ShapeType::kHalfspace && type_b == ShapeType::kHalfspace);
}

}  // namespace csim::geometry
