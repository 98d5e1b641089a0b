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

bool HasContactSurface(Compliance a, bool a_is_halfspace, Compliance b, bool b_is_halfspace) {
  if (a == Compliance::kNone || b == Compliance::kNone) return false;
  if (a != Compliance::kCompliant && b != Compliance::kCompliant)
    return false;  // rigid against rigid: point contact
  return !(a_is_halfspace && b_is_halfspace);
}

bool HasContactSurface(const HydroelasticProperties& a, ShapeType type_a,
                       const HydroelasticProperties& b, ShapeType type_b) {
  return HasContactSurface(a.compliance, type_a == ShapeType::kHalfspace, b.compliance,
                           type_b == ShapeType::kHalfspace);
}

}  // namespace csim::geometry
