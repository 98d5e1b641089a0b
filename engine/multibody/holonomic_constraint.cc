#include "engine/multibody/holonomic_constraint.h"

namespace csim::multibody {

const char* HolonomicTypeName(HolonomicType type) {
  switch (type) {
    case HolonomicType::kCoupler: return "coupler";
    case HolonomicType::kDistance: return "distance";
    case HolonomicType::kBall: return "ball";
    case HolonomicType::kWeld: return "weld";
  }
  return "unknown";
}

int HolonomicRows(HolonomicType type) {
  switch (type) {
    case HolonomicType::kCoupler:
    case HolonomicType::kDistance: return 1;
    case HolonomicType::kBall: return 3;
    case HolonomicType::kWeld: return 6;
  }
  return 0;
}

int TotalHolonomicRows(const std::vector<HolonomicConstraint>& constraints) {
  int rows = 0;
  for (const HolonomicConstraint& c : constraints) rows += HolonomicRows(c.type);
  return rows;
}

}  // namespace csim::multibody
