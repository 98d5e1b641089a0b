#include "engine/hydroelastic/bvh.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace csim::hydroelastic {

using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

/// Bounds [lo, hi] and centroid of one element, for the build.
struct ElementBounds {
  Vector3d lo, hi;  ///< [m]
  Vector3d centroid;  ///< [m]
};

class BvhBuilder {
 public:
  explicit BvhBuilder(std::vector<ElementBounds> bounds) : bounds_(std::move(bounds)) {
    order_.resize(bounds_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int>(i);
  }

  Bvh Build() {
    Bvh bvh;
    if (order_.empty()) return bvh;
    bvh.nodes.reserve(2 * order_.size() - 1);  // a binary tree with one element per leaf
    BuildRange(0, static_cast<int>(order_.size()), &bvh.nodes);
    return bvh;
  }

 private:
  /// Makes the node of the elements order_[begin, end) and returns its index.
  int BuildRange(int begin, int end, std::vector<BvhNode>* nodes) {
    const int index = static_cast<int>(nodes->size());
    nodes->emplace_back();
    Vector3d lo = Vector3d::Constant(std::numeric_limits<double>::infinity());
    Vector3d hi = -lo;
    Vector3d c_lo = lo, c_hi = hi;  // bounds of the centroids, which choose the split axis
    for (int i = begin; i < end; ++i) {
      const ElementBounds& e = bounds_[order_[i]];
      lo = lo.cwiseMin(e.lo);
      hi = hi.cwiseMax(e.hi);
      c_lo = c_lo.cwiseMin(e.centroid);
      c_hi = c_hi.cwiseMax(e.centroid);
    }
    (*nodes)[index].box = {0.5 * (lo + hi), 0.5 * (hi - lo)};
    if (end - begin == 1) {
      (*nodes)[index].element = order_[begin];
      return index;
    }
    // Median split along the longest extent of the centroids: balanced, so the depth is
    // ceil(log2 n) whatever the element sizes.
    int axis = 0;
    (c_hi - c_lo).maxCoeff(&axis);
    const int mid = begin + (end - begin) / 2;
    std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                     [&](int a, int b) {
                       return bounds_[a].centroid[axis] < bounds_[b].centroid[axis];
                     });
    const int left = BuildRange(begin, mid, nodes);
    const int right = BuildRange(mid, end, nodes);
    (*nodes)[index].left = left;
    (*nodes)[index].right = right;
    return index;
  }

  std::vector<ElementBounds> bounds_;
  std::vector<int> order_;
};

template <int kCount, typename Indices>
ElementBounds BoundsOf(const std::vector<Vector3d>& vertices, const Indices& element) {
  ElementBounds e{vertices[element[0]], vertices[element[0]], Vector3d::Zero()};
  for (int k = 0; k < kCount; ++k) {
    const Vector3d& x = vertices[element[k]];
    e.lo = e.lo.cwiseMin(x);
    e.hi = e.hi.cwiseMax(x);
    e.centroid += x / kCount;
  }
  return e;
}

/// The relative pose of a pair query with the absolute rotation the SAT needs, made once.
struct PairContext {
  Matrix3d R;      ///< R_AB
  Matrix3d abs_R;  ///< |R_AB| + slack
  Vector3d p;      ///< p_AoBo [m]
};

/// Slack added to |R_AB|: when an edge of A and an edge of B are nearly parallel their cross
/// product is nearly zero, both sides of that axis's test are roundoff, and without the slack
/// the test could report a false separation.
constexpr double kRotationSlack = 1e-12;

PairContext MakeContext(const math::RigidTransform& X_AB) {
  return {X_AB.R, X_AB.R.cwiseAbs().array() + kRotationSlack, X_AB.p};
}

/// Separating-axis test of two boxes, A's axis-aligned in A and B's axis-aligned in B, on the
/// 3 face axes of each and the 9 cross products of their edges. t is the vector between the
/// centres in A. An axis L separates when |t . L| exceeds the sum of the boxes' projected
/// radii, sum_k h_k |e_k . L| for each box.
bool Overlap(const Aabb& box_A, const Aabb& box_B, const PairContext& c) {
  const Vector3d t = c.R * box_B.center + c.p - box_A.center;
  const Vector3d& a = box_A.half_size;
  const Vector3d& b = box_B.half_size;
  const Matrix3d& R = c.R;
  const Matrix3d& Q = c.abs_R;
  for (int i = 0; i < 3; ++i) {  // A's face normals e_i
    if (std::abs(t[i]) > a[i] + Q.row(i).dot(b)) return false;
  }
  for (int j = 0; j < 3; ++j) {  // B's face normals R.col(j)
    if (std::abs(t.dot(R.col(j))) > Q.col(j).dot(a) + b[j]) return false;
  }
  for (int i = 0; i < 3; ++i) {  // L = e_i x R.col(j)
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double ra = a[i1] * Q(i2, j) + a[i2] * Q(i1, j);
      const double rb = b[j1] * Q(i, j2) + b[j2] * Q(i, j1);
      if (std::abs(t[i2] * R(i1, j) - t[i1] * R(i2, j)) > ra + rb) return false;
    }
  }
  return true;
}

/// Sum of the half sizes, the size measure that picks which node to descend.
double Size(const Aabb& box) { return box.half_size.sum(); }

void DescendPair(const Bvh& bvh_A, int node_a, const Bvh& bvh_B, int node_b, const PairContext& c,
                 std::vector<ElementPair>* pairs) {
  const BvhNode& na = bvh_A.nodes[node_a];
  const BvhNode& nb = bvh_B.nodes[node_b];
  if (!Overlap(na.box, nb.box, c)) return;
  const bool leaf_a = na.element >= 0, leaf_b = nb.element >= 0;
  if (leaf_a && leaf_b) {
    pairs->push_back({na.element, nb.element});
  } else if (leaf_b || (!leaf_a && Size(na.box) >= Size(nb.box))) {
    DescendPair(bvh_A, na.left, bvh_B, node_b, c, pairs);
    DescendPair(bvh_A, na.right, bvh_B, node_b, c, pairs);
  } else {
    DescendPair(bvh_A, node_a, bvh_B, nb.left, c, pairs);
    DescendPair(bvh_A, node_a, bvh_B, nb.right, c, pairs);
  }
}

/// Collects the leaves whose boxes meet the plane (both sides) or the half-space below it.
void DescendPlane(const Bvh& bvh, int node, const Vector3d& n, double d, bool below_only,
                  std::vector<int>* elements) {
  const BvhNode& nd = bvh.nodes[node];
  // The box's signed heights n . x + d span centre +- radius.
  const double center = n.dot(nd.box.center) + d;
  const double radius = n.cwiseAbs().dot(nd.box.half_size);
  if (center - radius > 0.0) return;                 // entirely above
  if (!below_only && center + radius < 0.0) return;  // entirely below
  if (nd.element >= 0) {
    elements->push_back(nd.element);
    return;
  }
  DescendPlane(bvh, nd.left, n, d, below_only, elements);
  DescendPlane(bvh, nd.right, n, d, below_only, elements);
}

}  // namespace

Bvh BuildBvh(const VolumeMesh& mesh) {
  std::vector<ElementBounds> bounds;
  bounds.reserve(mesh.tets.size());
  for (const auto& tet : mesh.tets) bounds.push_back(BoundsOf<4>(mesh.vertices, tet));
  return BvhBuilder(std::move(bounds)).Build();
}

Bvh BuildBvh(const SurfaceMesh& mesh) {
  std::vector<ElementBounds> bounds;
  bounds.reserve(mesh.triangles.size());
  for (const auto& tri : mesh.triangles) bounds.push_back(BoundsOf<3>(mesh.vertices, tri));
  return BvhBuilder(std::move(bounds)).Build();
}

bool BoxesOverlap(const Aabb& box_A, const Aabb& box_B, const math::RigidTransform& X_AB) {
  return Overlap(box_A, box_B, MakeContext(X_AB));
}

void FindOverlappingElements(const Bvh& bvh_A, const Bvh& bvh_B, const math::RigidTransform& X_AB,
                             std::vector<ElementPair>* pairs) {
  pairs->clear();
  if (bvh_A.nodes.empty() || bvh_B.nodes.empty()) return;
  DescendPair(bvh_A, 0, bvh_B, 0, MakeContext(X_AB), pairs);
}

void FindElementsCrossingPlane(const Bvh& bvh, const Vector3d& n_G, double d,
                               std::vector<int>* elements) {
  elements->clear();
  if (!bvh.nodes.empty()) DescendPlane(bvh, 0, n_G, d, false, elements);
}

void FindElementsBelowPlane(const Bvh& bvh, const Vector3d& n_G, double d,
                            std::vector<int>* elements) {
  elements->clear();
  if (!bvh.nodes.empty()) DescendPlane(bvh, 0, n_G, d, true, elements);
}

}  // namespace csim::hydroelastic
