#include "engine/geometry/collision_filter.h"

#include <algorithm>

#include "engine/common/check.h"

namespace csim::geometry {

CollisionFilter::CollisionFilter(const std::vector<int>& parent,
                                 const std::vector<bool>& joint_collide,
                                 const std::vector<bool>& welded_to_world,
                                 const std::vector<std::pair<int, int>>& extra_excluded)
    : fixed_(welded_to_world) {
  CSIM_CHECK(joint_collide.size() == parent.size());
  CSIM_CHECK(welded_to_world.size() == parent.size());
  for (int i = 0; i < static_cast<int>(parent.size()); ++i) {
    CSIM_CHECK(parent[i] >= -1 && parent[i] < static_cast<int>(parent.size()));
    if (!joint_collide[i]) excluded_.emplace_back(std::min(parent[i], i), std::max(parent[i], i));
  }
  for (const auto& [a, b] : extra_excluded) {
    CSIM_CHECK(a >= -1 && b >= -1 && a < static_cast<int>(parent.size()) &&
               b < static_cast<int>(parent.size()));
    excluded_.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::sort(excluded_.begin(), excluded_.end());
  excluded_.erase(std::unique(excluded_.begin(), excluded_.end()), excluded_.end());
}

bool CollisionFilter::IsFixed(int body) const {
  if (body < 0) return true;
  return body < static_cast<int>(fixed_.size()) && fixed_[body];
}

bool CollisionFilter::Excludes(int body_a, int body_b) const {
  if (body_a == body_b) return true;
  if (IsFixed(body_a) && IsFixed(body_b)) return true;
  const std::pair<int, int> key(std::min(body_a, body_b), std::max(body_a, body_b));
  return std::binary_search(excluded_.begin(), excluded_.end(), key);
}

std::vector<bool> WeldedToWorld(const std::vector<int>& parent,
                                const std::vector<bool>& joint_fixed) {
  CSIM_CHECK(joint_fixed.size() == parent.size());
  std::vector<bool> welded(parent.size(), false);
  for (size_t i = 0; i < parent.size(); ++i) {
    CSIM_CHECK(parent[i] < static_cast<int>(i));
    const bool parent_welded = parent[i] < 0 || welded[parent[i]];
    welded[i] = joint_fixed[i] && parent_welded;
  }
  return welded;
}

}  // namespace csim::geometry
