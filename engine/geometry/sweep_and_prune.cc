#include "engine/geometry/sweep_and_prune.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "engine/common/check.h"

namespace csim::geometry {
namespace {

// A new axis must spread the centres this much more than the current one before the sweep
// switches: a switch costs a full sort, and two axes with similar spread would otherwise
// alternate from step to step.
constexpr double kAxisSwitchRatio = 1.5;

}  // namespace

void SweepAndPrune::Resize(int num_boxes) {
  CSIM_CHECK(num_boxes >= 0);
  if (num_boxes != this->num_boxes()) ordered_ = false;
  boxes_.resize(num_boxes);
  sorted_.resize(num_boxes);
  order_.resize(num_boxes);
}

void SweepAndPrune::SetBox(int i, const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
  CSIM_CHECK(i >= 0 && i < num_boxes());
  Box& b = boxes_[i];
  const bool finite = lo.allFinite() && hi.allFinite();
  for (int a = 0; a < 3; ++a) {
    // A non-finite box is stored empty, lo = +inf > hi = -inf: it sorts last and fails
    // every overlap test, so it pairs with nothing.
    b.lo[a] = finite ? lo[a] : std::numeric_limits<double>::infinity();
    b.hi[a] = finite ? hi[a] : -std::numeric_limits<double>::infinity();
  }
  b.index = i;
}

// Variance of the box centres along each axis (empty boxes left out).
int SweepAndPrune::ChooseAxis() const {
  double sum[3] = {0, 0, 0}, sum_sq[3] = {0, 0, 0};
  int n = 0;
  for (const Box& b : boxes_) {
    if (!std::isfinite(b.lo[0])) continue;
    ++n;
    for (int a = 0; a < 3; ++a) {
      const double c = 0.5 * (b.lo[a] + b.hi[a]);
      sum[a] += c;
      sum_sq[a] += c * c;
    }
  }
  if (n < 2) return axis_;
  double variance[3];
  for (int a = 0; a < 3; ++a) variance[a] = sum_sq[a] / n - (sum[a] / n) * (sum[a] / n);
  int best = 0;
  for (int a = 1; a < 3; ++a)
    if (variance[a] > variance[best]) best = a;
  return variance[best] > kAxisSwitchRatio * variance[axis_] ? best : axis_;
}

// Sorts order_ by (lo along the sweep axis, index); no key is NaN (SetBox). The last
// call's order is nearly sorted when the bodies moved little, and insertion sort then does
// O(n + swaps) work; a new axis or a new set of boxes gets a full sort.
void SweepAndPrune::SortOrder(bool axis_changed) {
  const auto less = [this](int i, int j) {
    const double ki = boxes_[i].lo[axis_], kj = boxes_[j].lo[axis_];
    return ki < kj || (ki == kj && i < j);
  };
  if (!ordered_ || axis_changed) {
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), less);
    ordered_ = true;
    return;
  }
  for (size_t p = 1; p < order_.size(); ++p) {
    const int moving = order_[p];
    size_t q = p;
    while (q > 0 && less(moving, order_[q - 1])) {
      order_[q] = order_[q - 1];
      --q;
    }
    order_[q] = moving;
  }
}

void SweepAndPrune::FindOverlaps(std::vector<std::pair<int, int>>* pairs) {
  const int previous_axis = axis_;
  axis_ = ChooseAxis();
  SortOrder(axis_ != previous_axis);
  const int n = num_boxes();
  for (int p = 0; p < n; ++p) sorted_[p] = boxes_[order_[p]];
  const int u = axis_, v = (axis_ + 1) % 3, w = (axis_ + 2) % 3;
  for (int p = 0; p < n; ++p) {
    const Box& a = sorted_[p];
    for (int q = p + 1; q < n && sorted_[q].lo[u] <= a.hi[u]; ++q) {
      const Box& b = sorted_[q];
      if (b.lo[v] <= a.hi[v] && a.lo[v] <= b.hi[v] && b.lo[w] <= a.hi[w] &&
          a.lo[w] <= b.hi[w] && a.lo[u] <= b.hi[u]) {
        pairs->emplace_back(std::min(a.index, b.index), std::max(a.index, b.index));
      }
    }
  }
}

}  // namespace csim::geometry
