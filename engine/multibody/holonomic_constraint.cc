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

std::vector<int> HolonomicRowOffsets(const std::vector<HolonomicConstraint>& constraints) {
  std::vector<int> offsets{0};
  for (const HolonomicConstraint& c : constraints)
    offsets.push_back(offsets.back() + HolonomicRows(c.type));
  return offsets;
}

HolonomicAttachment AttachmentOf(const HolonomicConstraint& c) {
  if (c.type == HolonomicType::kCoupler) return {c.follows, c.joint};
  return {c.body_a, c.body_b, c.X_AP.p, c.X_BQ.p};
}

int TotalHolonomicRows(const std::vector<HolonomicConstraint>& constraints) {
  return HolonomicRowOffsets(constraints).back();
}

}  // namespace csim::multibody
