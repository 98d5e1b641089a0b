#pragma once
// Sweep and prune: the broad phase of CollisionWorld. Finds every pair of axis-aligned
// boxes that intersect, by sorting the boxes along one axis and sweeping that axis.
//
// Why not a dynamic AABB tree such as FCL's: the tree keeps the topology it was built with
// and only refits its boxes as the bodies move. Once a pile has collapsed and spread, its
// inner boxes are large and overlap, the self-collision descent visits many node pairs, and
// every visit chases a pointer into a separately allocated node; settled piles spent more
// time in the tree than in this sweep. The sweep reads one contiguous array in order, and
// the order of the last call is sorted again by insertion, which costs O(n + the number of
// boxes that changed places) for bodies that move little per step.
//
// The result is the exact set of intersecting pairs (closed boxes: touching counts), so it
// does not depend on the sweep axis or on the history of calls; only the order in which the
// pairs are appended does.

#include <utility>
#include <vector>

#include <Eigen/Core>

namespace csim::geometry {

class SweepAndPrune {
 public:
  /// Sets the number of boxes; every box must then be set before FindOverlaps().
  /// Capacity is kept, so calling it again with the same count does not allocate.
  void Resize(int num_boxes);
  int num_boxes() const { return static_cast<int>(boxes_.size()); }

  /// Box i is [lo, hi] (lo <= hi per axis) [m]. A box with a non-finite bound overlaps
  /// nothing.
  void SetBox(int i, const Eigen::Vector3d& lo, const Eigen::Vector3d& hi);

  /// Appends (i, j), i < j, for every pair of boxes with lo_i <= hi_j and lo_j <= hi_i on
  /// all three axes; each pair once. Does not clear *pairs. Allocation-free once *pairs
  /// and the internal arrays have reached their steady size.
  void FindOverlaps(std::vector<std::pair<int, int>>* pairs);

  /// The axis (0, 1, 2) the last FindOverlaps() swept: the one along which the box centres
  /// spread most (so the fewest boxes share an interval along it), kept until another axis
  /// spreads them 1.5 times as much (a switch costs a full sort).
  int sweep_axis() const { return axis_; }

 private:
  struct Box {
    double lo[3];
    double hi[3];
    int index;  // position in boxes_
  };

  int ChooseAxis() const;
  void SortOrder(bool axis_changed);

  std::vector<Box> boxes_;   // by box index, as set
  std::vector<int> order_;   // box indices sorted by lo[axis_], kept between calls
  std::vector<Box> sorted_;  // boxes_ in order_: the sweep reads memory in sequence
  int axis_ = 0;
  bool ordered_ = false;     // order_ holds a permutation of the current boxes
};

}  // namespace csim::geometry
