// SweepAndPrune (engine/geometry/sweep_and_prune.h) against the definition of its output:
// every pair of closed boxes that intersect, found here by testing all n (n - 1) / 2 pairs.

#include "engine/geometry/sweep_and_prune.h"

#include <algorithm>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/support/allocation_counter.h"

namespace csim::geometry {
namespace {

using Eigen::Vector3d;
using Pairs = std::vector<std::pair<int, int>>;

struct Box {
  Vector3d lo, hi;
};

Pairs AllPairsOverlapping(const std::vector<Box>& boxes) {
  Pairs out;
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i)
    for (int j = i + 1; j < static_cast<int>(boxes.size()); ++j)
      if ((boxes[i].lo.array() <= boxes[j].hi.array()).all() &&
          (boxes[j].lo.array() <= boxes[i].hi.array()).all())
        out.emplace_back(i, j);
  return out;
}

Pairs Sweep(SweepAndPrune& sap, const std::vector<Box>& boxes) {
  sap.Resize(static_cast<int>(boxes.size()));
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) sap.SetBox(i, boxes[i].lo, boxes[i].hi);
  Pairs out;
  sap.FindOverlaps(&out);
  std::sort(out.begin(), out.end());
  return out;
}

// n boxes with centres spread by `spread` per axis and half-sizes up to max_half.
std::vector<Box> RandomBoxes(int n, const Vector3d& spread, double max_half, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Box> boxes(n);
  for (Box& b : boxes) {
    const Vector3d c(spread.x() * unit(rng), spread.y() * unit(rng), spread.z() * unit(rng));
    const Vector3d h(max_half * unit(rng), max_half * unit(rng), max_half * unit(rng));
    b = {c - h, c + h};
  }
  return boxes;
}

TEST_CASE("Sweep and prune: exactly the intersecting pairs of random boxes", "[collision]") {
  std::mt19937 rng(7);
  for (const Vector3d& spread : {Vector3d(1, 1, 1), Vector3d(4, 0.5, 0.2), Vector3d(0.2, 0.3, 5)}) {
    SweepAndPrune sap;
    const std::vector<Box> boxes = RandomBoxes(300, spread, 0.08, rng);
    const Pairs expected = AllPairsOverlapping(boxes);
    REQUIRE(expected.size() > 100);  // the check has pairs to find
    CHECK(Sweep(sap, boxes) == expected);
    // The axis the centres spread most along is swept.
    int widest = 0;
    spread.maxCoeff(&widest);
    CHECK(sap.sweep_axis() == widest);
  }
}

TEST_CASE("Sweep and prune: boxes that move between calls, and a change of axis", "[collision]") {
  std::mt19937 rng(11);
  std::normal_distribution<double> step(0.0, 0.01);
  SweepAndPrune sap;
  std::vector<Box> boxes = RandomBoxes(200, Vector3d(1, 0.5, 0.5), 0.05, rng);
  CHECK(Sweep(sap, boxes) == AllPairsOverlapping(boxes));
  CHECK(sap.sweep_axis() == 0);
  // Small moves: the last order is sorted again by insertion.
  for (int call = 0; call < 50; ++call) {
    for (Box& b : boxes) {
      const Vector3d d(step(rng), step(rng), step(rng));
      b.lo += d;
      b.hi += d;
    }
    REQUIRE(Sweep(sap, boxes) == AllPairsOverlapping(boxes));
  }
  // Stretch the boxes' centres along z: the sweep moves to z and stays exact.
  for (Box& b : boxes) {
    const double dz = 5.0 * (0.5 * (b.lo.x() + b.hi.x()));
    b.lo.z() += dz;
    b.hi.z() += dz;
    std::swap(b.lo.x(), b.lo.y());
    std::swap(b.hi.x(), b.hi.y());
  }
  CHECK(Sweep(sap, boxes) == AllPairsOverlapping(boxes));
  CHECK(sap.sweep_axis() == 2);
}

TEST_CASE("Sweep and prune: touching boxes overlap, a gap of one ulp does not", "[collision]") {
  SweepAndPrune sap;
  const double past_one = std::nextafter(1.0, 2.0), past_two = std::nextafter(2.0, 3.0);
  for (int axis = 0; axis < 3; ++axis) {
    const Vector3d e = Vector3d::Unit(axis);
    // Along `axis`: [0, 1], [1, 2] touching it, and one starting one ulp past 2.
    const std::vector<Box> touching = {{Vector3d::Zero(), Vector3d::Ones()},
                                       {e, Vector3d::Ones() + e},
                                       {Vector3d::Ones() - e + past_two * e,
                                        Vector3d::Ones() + 2 * e}};
    // [0, 1] and one starting one ulp past 1.
    const std::vector<Box> separated = {touching[0], {past_one * e, Vector3d::Ones() + e}};
    CHECK(Sweep(sap, touching) == Pairs{{0, 1}});
    CHECK(Sweep(sap, separated).empty());
  }
  // Identical boxes and a degenerate (point) box inside them.
  const std::vector<Box> same = {{Vector3d::Zero(), Vector3d::Ones()},
                                 {Vector3d::Zero(), Vector3d::Ones()},
                                 {Vector3d::Constant(0.5), Vector3d::Constant(0.5)}};
  CHECK(Sweep(sap, same) == (Pairs{{0, 1}, {0, 2}, {1, 2}}));
}

TEST_CASE("Sweep and prune: a box with a non-finite bound pairs with nothing", "[collision]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  SweepAndPrune sap;
  for (const Box& bad : {Box{Vector3d(nan, 0, 0), Vector3d::Ones()},
                        Box{Vector3d::Zero(), Vector3d(1, inf, 1)},
                        Box{Vector3d(0, 0, -inf), Vector3d::Ones()}}) {
    const std::vector<Box> boxes = {{Vector3d::Zero(), Vector3d::Ones()},
                                    bad,
                                    {Vector3d::Constant(0.5), Vector3d::Constant(2)}};
    CHECK(Sweep(sap, boxes) == Pairs{{0, 2}});
  }
  CHECK(Sweep(sap, {}).empty());
}

TEST_CASE("Sweep and prune: no allocation once its arrays have reached their size", "[collision]") {
  std::mt19937 rng(3);
  SweepAndPrune sap;
  std::vector<Box> boxes = RandomBoxes(100, Vector3d(1, 1, 1), 0.1, rng);
  Pairs out;
  const auto sweep = [&] {
    out.clear();
    sap.Resize(100);
    for (int i = 0; i < 100; ++i) sap.SetBox(i, boxes[i].lo, boxes[i].hi);
    sap.FindOverlaps(&out);
  };
  sweep();
  out.reserve(4 * out.size());
  for (int i = 0; i < 100; ++i) {  // the boxes move and change places: insertion sort
    boxes[i].lo.x() += 0.01 * (i % 3);
    boxes[i].hi.x() += 0.01 * (i % 3);
  }
  const std::size_t before = csim::testing::AllocationCount();
  sweep();
  const std::size_t allocations = csim::testing::AllocationCount() - before;
  CHECK(allocations == 0);
  CHECK(!out.empty());
}

}  // namespace
}  // namespace csim::geometry
