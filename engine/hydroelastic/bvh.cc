#include "engine/hydroelastic/bvh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace csim::hydroelastic {

using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

/// The vertices of one element (kCount = 4 for a tet, 3 for a triangle), by index into the
/// mesh's vertices.
template <int kCount>
using Element = std::array<int, kCount>;

/// Relative padding of a fitted box's half sizes, on the box's largest coordinate: projecting
/// a vertex onto the box's axes and storing the centre in the geometry frame round, and the
/// padding keeps every vertex inside the box that is stored.
constexpr double kFitPadding = 32.0 * std::numeric_limits<double>::epsilon();

/// The box with axes R that bounds `points` (padded for roundoff).
Obb FitBox(const Matrix3d& R, const std::vector<Vector3d>& points) {
  Vector3d lo = Vector3d::Constant(std::numeric_limits<double>::infinity());
  Vector3d hi = -lo;
  for (const Vector3d& x : points) {
    const Vector3d q = R.transpose() * x;
    lo = lo.cwiseMin(q);
    hi = hi.cwiseMax(q);
  }
  const double pad = kFitPadding * lo.cwiseAbs().cwiseMax(hi.cwiseAbs()).maxCoeff();
  return {R, R * (0.5 * (lo + hi)), (0.5 * (hi - lo)).array() + pad};
}

/// The volume the fit minimizes, with each half size raised by a millionth of the largest so
/// that among flat boxes (a triangle's) the one of least area wins.
double FitMeasure(const Obb& box) {
  const Vector3d h = box.half_size.array() + 1e-6 * box.half_size.maxCoeff();
  return h.prod();
}

/// The principal axes of `points` (eigenvectors of their covariance), as a rotation.
Matrix3d PrincipalAxes(const std::vector<Vector3d>& points) {
  Vector3d mean = Vector3d::Zero();
  for (const Vector3d& x : points) mean += x;
  mean /= static_cast<double>(points.size());
  double xx = 0, xy = 0, xz = 0, yy = 0, yz = 0, zz = 0;  // the lower triangle is enough
  for (const Vector3d& x : points) {
    const Vector3d e = x - mean;
    xx += e.x() * e.x();
    xy += e.x() * e.y();
    xz += e.x() * e.z();
    yy += e.y() * e.y();
    yz += e.y() * e.z();
    zz += e.z() * e.z();
  }
  Matrix3d covariance;
  covariance << xx, xy, xz, xy, yy, yz, xz, yz, zz;
  Matrix3d R = Eigen::SelfAdjointEigenSolver<Matrix3d>(covariance).eigenvectors();
  if (R.determinant() < 0.0) R.col(0) = -R.col(0);
  return R;
}

/// The right-handed frame with first axis along u and second in the plane of u and w, or
/// false when u and w are (nearly) parallel.
bool FrameFromEdges(const Vector3d& u, const Vector3d& w, Matrix3d* R) {
  const Vector3d e0 = u.normalized();
  const Vector3d v = w - e0.dot(w) * e0;
  if (!(v.norm() > 1e-9 * w.norm())) return false;
  R->col(0) = e0;
  R->col(1) = v.normalized();
  R->col(2) = e0.cross(R->col(1));
  return true;
}

template <int kCount>
class BvhBuilder {
 public:
  BvhBuilder(const std::vector<Vector3d>& vertices, std::vector<Element<kCount>> elements)
      : vertices_(vertices), elements_(std::move(elements)), seen_(vertices.size(), -1) {
    order_.resize(elements_.size());
    centroids_.resize(elements_.size());
    for (size_t i = 0; i < order_.size(); ++i) {
      order_[i] = static_cast<int>(i);
      centroids_[i].setZero();
      for (const int v : elements_[i]) centroids_[i] += vertices_[v] / kCount;
    }
  }

  Bvh Build() {
    Bvh bvh;
    if (order_.empty()) return bvh;
    bvh.nodes.reserve(2 * order_.size() - 1);  // a binary tree with one element per leaf
    BuildRange(0, static_cast<int>(order_.size()), &bvh.nodes);
    bvh.ball_center = bvh.nodes[0].box.center;
    double radius = 0.0;
    for (const Vector3d& x : vertices_) radius = std::max(radius, (x - bvh.ball_center).norm());
    bvh.ball_radius = (1.0 + kFitPadding) * radius;
    return bvh;
  }

 private:
  /// Makes the node of the elements order_[begin, end) and returns its index: the children
  /// first, whose orientations are candidates for the parent's box.
  int BuildRange(int begin, int end, std::vector<BvhNode>* nodes) {
    const int index = static_cast<int>(nodes->size());
    nodes->emplace_back();
    if (end - begin == 1) {
      (*nodes)[index].element = order_[begin];
      (*nodes)[index].box = FitLeaf(elements_[order_[begin]]);
      return index;
    }
    // Median split, balanced so that the depth is ceil(log2 n) whatever the element sizes,
    // along the axis of the geometry frame that gives the children the least total volume.
    const int mid = begin + (end - begin) / 2;
    int axis = 0;
    double least = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 3; ++k) {
      SplitAt(begin, mid, end, k);
      const double volume = FitMeasure(QuickFit(begin, mid)) + FitMeasure(QuickFit(mid, end));
      if (volume < least) {
        least = volume;
        axis = k;
      }
    }
    SplitAt(begin, mid, end, axis);
    const int left = BuildRange(begin, mid, nodes);
    const int right = BuildRange(mid, end, nodes);
    BvhNode& node = (*nodes)[index];
    node.left = left;
    node.right = right;
    node.box = FitInternal(begin, end, (*nodes)[left].box.R, (*nodes)[right].box.R);
    for (const int child : {left, right}) {
      (*nodes)[child].same_axes_as_parent = (*nodes)[child].box.R == node.box.R;
    }
    return index;
  }

  /// Reorders order_[begin, end) so that the elements before mid have the smaller centroid
  /// coordinates along `axis`.
  void SplitAt(int begin, int mid, int end, int axis) {
    std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                     [&](int a, int b) { return centroids_[a][axis] < centroids_[b][axis]; });
  }

  /// The distinct vertices of the elements order_[begin, end), in the order first met.
  std::vector<Vector3d> PointsOf(int begin, int end) {
    ++stamp_;
    std::vector<Vector3d> points;
    for (int i = begin; i < end; ++i) {
      for (const int v : elements_[order_[i]]) {
        if (seen_[v] == stamp_) continue;
        seen_[v] = stamp_;
        points.push_back(vertices_[v]);
      }
    }
    return points;
  }

  /// A box of order_[begin, end) that only judges a split: the better of the geometry's axes
  /// and the principal axes.
  Obb QuickFit(int begin, int end) {
    const std::vector<Vector3d> points = PointsOf(begin, end);
    return Best({Matrix3d::Identity(), PrincipalAxes(points)}, points);
  }

  /// The least-volume box of an internal node over the distinct vertices of its elements.
  Obb FitInternal(int begin, int end, const Matrix3d& R_left, const Matrix3d& R_right) {
    const std::vector<Vector3d> points = PointsOf(begin, end);
    return Best({Matrix3d::Identity(), PrincipalAxes(points), R_left, R_right}, points);
  }

  /// The least-volume box of one element, over the geometry's axes and the frames spanned by
  /// each of its edges and a third vertex.
  Obb FitLeaf(const Element<kCount>& element) const {
    std::vector<Vector3d> points;
    for (const int v : element) points.push_back(vertices_[v]);
    std::vector<Matrix3d> frames = {Matrix3d::Identity()};
    for (int i = 0; i < kCount; ++i) {
      for (int j = i + 1; j < kCount; ++j) {
        for (int k = 0; k < kCount; ++k) {
          Matrix3d R;
          if (k != i && k != j && FrameFromEdges(points[j] - points[i], points[k] - points[i], &R))
            frames.push_back(R);
        }
      }
    }
    return Best(frames, points);
  }

  static Obb Best(const std::vector<Matrix3d>& frames, const std::vector<Vector3d>& points) {
    Obb best = FitBox(frames[0], points);
    for (size_t f = 1; f < frames.size(); ++f) {
      const Obb box = FitBox(frames[f], points);
      if (FitMeasure(box) < FitMeasure(best)) best = box;
    }
    return best;
  }

  const std::vector<Vector3d>& vertices_;
  std::vector<Element<kCount>> elements_;
  std::vector<Vector3d> centroids_;
  std::vector<int> order_;
  std::vector<int> seen_;  ///< per vertex: the stamp_ of the last PointsOf that met it
  int stamp_ = 0;
};

/// Slack added to the absolute rotation between two boxes: when an edge of A and an edge of B
/// are nearly parallel their cross product is nearly zero, both sides of that axis's test are
/// roundoff, and without the slack the test could report a false separation.
constexpr double kRotationSlack = 1e-12;

/// A box of geometry B with its axes and centre expressed in A's frame.
struct PlacedBox {
  Matrix3d R;                 ///< R_AO: the box's axes in A
  Vector3d center;            ///< in A [m]
  const Vector3d* half_size;  ///< the box's own [m]
};

PlacedBox Place(const Obb& box_B, const math::RigidTransform& X_AB) {
  return {X_AB.R * box_B.R, X_AB * box_B.center, &box_B.half_size};
}

/// What the separating-axis test of boxes a and b needs besides their centres: C = R_a^T R_b,
/// b's axes in a's box frame, and Q = |C| + slack.
struct RelativeAxes {
  Matrix3d C;
  Matrix3d Q;
};

RelativeAxes Relate(const Matrix3d& R_a, const Matrix3d& R_b) {
  // Coefficient by coefficient: Eigen's product into a temporary, then |C| from it, makes the
  // compiler store single coefficients and load them back in pairs, which stalls.
  RelativeAxes r;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      const double c = R_a.col(i).dot(R_b.col(j));
      r.C(i, j) = c;
      r.Q(i, j) = std::abs(c) + kRotationSlack;
    }
  }
  return r;
}

// Separating-axis test of two boxes in one frame, on box a's 3 face normals, box b's 3, and
// the 9 cross products of their edges. In a's box frame, with t the vector between the
// centres, an axis L separates when |t . L| exceeds the sum of the boxes' projected radii,
// sum_k h_k |e_k . L| for each box.

/// The test on the 6 face normals; t is set to the centres' offset in a's box frame. Passing
/// it is necessary for the boxes to overlap, not sufficient.
bool FaceAxesOverlap(const Obb& box_a, const PlacedBox& box_b, const RelativeAxes& r,
                     Vector3d* t) {
  const Vector3d& a = box_a.half_size;
  const Vector3d& b = *box_b.half_size;
  *t = box_a.R.transpose() * (box_b.center - box_a.center);
  for (int i = 0; i < 3; ++i) {  // a's face normals e_i
    if (std::abs((*t)[i]) > a[i] + r.Q.row(i).dot(b)) return false;
  }
  for (int j = 0; j < 3; ++j) {  // b's face normals, column j of C
    if (std::abs(t->dot(r.C.col(j))) > r.Q.col(j).dot(a) + b[j]) return false;
  }
  return true;
}

/// The test on the 9 edge-edge axes e_i x (column j of C), given t of FaceAxesOverlap.
bool EdgeAxesOverlap(const Vector3d& a, const Vector3d& b, const RelativeAxes& r,
                     const Vector3d& t) {
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double ra = a[i1] * r.Q(i2, j) + a[i2] * r.Q(i1, j);
      const double rb = b[j1] * r.Q(i, j2) + b[j2] * r.Q(i, j1);
      if (std::abs(t[i2] * r.C(i1, j) - t[i1] * r.C(i2, j)) > ra + rb) return false;
    }
  }
  return true;
}

/// Sum of the half sizes, the size measure that picks which node to descend.
double Size(const Obb& box) { return box.half_size.sum(); }

/// Whether `box` meets the ball of centre c and radius r (all in the box's frame), with the
/// slack of the box test: the distance from c to the box against r.
bool MeetsBall(const Obb& box, const Vector3d& c, double r) {
  const Vector3d q = (box.R.transpose() * (c - box.center)).cwiseAbs();
  const Vector3d outside = (q - box.half_size).cwiseMax(0.0);
  const double slack = kRotationSlack * (r + q.maxCoeff());
  return outside.squaredNorm() <= (r + slack) * (r + slack);
}

/// Marks in (*meets)[node] whether the box of each node meets the ball (c, r), for `node` and
/// below it down to the nodes that miss: a node whose box misses the ball has no element that
/// meets it, and the pair descent never goes below it.
void MarkNodesMeetingBall(const Bvh& bvh, int node, const Vector3d& c, double r,
                          std::vector<char>* meets) {
  const BvhNode& nd = bvh.nodes[node];
  (*meets)[node] = MeetsBall(nd.box, c, r);
  if (!(*meets)[node] || nd.element >= 0) return;
  MarkNodesMeetingBall(bvh, nd.left, c, r, meets);
  MarkNodesMeetingBall(bvh, nd.right, c, r, meets);
}

/// What the pair descent reads besides the two nodes.
struct PairQuery {
  const Bvh& bvh_A;
  const Bvh& bvh_B;
  const math::RigidTransform& X_AB;
  const std::vector<char>& meets_ball_A;  ///< MarkNodesMeetingBall of A against B's ball
  const std::vector<char>& meets_ball_B;  ///< of B against A's ball
  std::vector<ElementPair>* pairs;
};

void DescendPair(const PairQuery& q, int node_a, int node_b, const PlacedBox& box_b,
                 const RelativeAxes& axes);

/// DescendPair on the pairs of children: of na (or na itself when descend_a is false) and of
/// nb (or nb itself), each meeting the other geometry's ball. A pair of boxes with the axes of
/// the parents' (the fit often picks a child's axes for its parent,
/// BvhNode::same_axes_as_parent) reuses the parents' `axes`.
void DescendChildren(const PairQuery& q, int node_a, bool descend_a, int node_b, bool descend_b,
                     const PlacedBox& box_b, const RelativeAxes& axes) {
  const BvhNode& na = q.bvh_A.nodes[node_a];
  const BvhNode& nb = q.bvh_B.nodes[node_b];
  const int children_a[2] = {na.left, na.right};
  const int children_b[2] = {nb.left, nb.right};
  for (int jb = 0; jb < (descend_b ? 2 : 1); ++jb) {
    const int cb = descend_b ? children_b[jb] : node_b;
    if (descend_b && !q.meets_ball_B[cb]) continue;
    const BvhNode& nb_child = q.bvh_B.nodes[cb];
    const bool same_b = !descend_b || nb_child.same_axes_as_parent;
    const PlacedBox placed = !descend_b ? box_b
                             : same_b   ? PlacedBox{box_b.R, q.X_AB * nb_child.box.center,
                                                  &nb_child.box.half_size}
                                        : Place(nb_child.box, q.X_AB);
    for (int ja = 0; ja < (descend_a ? 2 : 1); ++ja) {
      const int ca = descend_a ? children_a[ja] : node_a;
      if (descend_a && !q.meets_ball_A[ca]) continue;
      const BvhNode& na_child = q.bvh_A.nodes[ca];
      const bool same_a = !descend_a || na_child.same_axes_as_parent;
      if (same_a && same_b) {
        DescendPair(q, ca, cb, placed, axes);
      } else {
        DescendPair(q, ca, cb, placed, Relate(na_child.box.R, placed.R));
      }
    }
  }
}

/// Below this ratio of their sizes, two overlapping internal nodes are both descended.
constexpr double kDescendBothRatio = 2.0;

/// Collects the leaf pairs below (node_a, node_b), two nodes that meet the other geometry's
/// ball; box_b is node_b's box placed in A, and `axes` relates the two boxes. Internal nodes
/// are compared on the face axes only, and two of similar sizes descended together (header).
void DescendPair(const PairQuery& q, int node_a, int node_b, const PlacedBox& box_b,
                 const RelativeAxes& axes) {
  const BvhNode& na = q.bvh_A.nodes[node_a];
  const BvhNode& nb = q.bvh_B.nodes[node_b];
  Vector3d t;
  if (!FaceAxesOverlap(na.box, box_b, axes, &t)) return;
  const bool leaf_a = na.element >= 0, leaf_b = nb.element >= 0;
  if (leaf_a && leaf_b) {
    if (EdgeAxesOverlap(na.box.half_size, *box_b.half_size, axes, t)) {
      q.pairs->push_back({na.element, nb.element});
    }
    return;
  }
  const bool descend_a = !leaf_a && (leaf_b || Size(na.box) * kDescendBothRatio >= Size(nb.box));
  const bool descend_b =
      !leaf_b && (!descend_a || Size(nb.box) * kDescendBothRatio >= Size(na.box));
  DescendChildren(q, node_a, descend_a, node_b, descend_b, box_b, axes);
}

/// Collects the leaves whose boxes meet the plane (both sides) or the half-space below it.
void DescendPlane(const Bvh& bvh, int node, const Vector3d& n, double d, bool below_only,
                  std::vector<int>* elements) {
  const BvhNode& nd = bvh.nodes[node];
  // The box's signed heights n . x + d span centre +- radius.
  const double center = n.dot(nd.box.center) + d;
  const double radius = (nd.box.R.transpose() * n).cwiseAbs().dot(nd.box.half_size);
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
  return BvhBuilder<4>(mesh.vertices, mesh.tets).Build();
}

Bvh BuildBvh(const SurfaceMesh& mesh) {
  std::vector<Element<3>> triangles;
  triangles.reserve(mesh.triangles.size());
  for (const Eigen::Vector3i& f : mesh.triangles) triangles.push_back({f[0], f[1], f[2]});
  return BvhBuilder<3>(mesh.vertices, std::move(triangles)).Build();
}

bool BoxesOverlap(const Obb& box_A, const Obb& box_B, const math::RigidTransform& X_AB) {
  const PlacedBox placed = Place(box_B, X_AB);
  const RelativeAxes axes = Relate(box_A.R, placed.R);
  Vector3d t;
  return FaceAxesOverlap(box_A, placed, axes, &t) &&
         EdgeAxesOverlap(box_A.half_size, box_B.half_size, axes, t);
}

void FindOverlappingElements(const Bvh& bvh_A, const Bvh& bvh_B, const math::RigidTransform& X_AB,
                             BvhCandidates* candidates) {
  candidates->pairs.clear();
  if (bvh_A.nodes.empty() || bvh_B.nodes.empty()) return;
  // Each tree against the other's ball, in its own frame.
  std::vector<char>& meets_A = candidates->meets_ball_A;
  std::vector<char>& meets_B = candidates->meets_ball_B;
  if (meets_A.size() < bvh_A.nodes.size()) meets_A.resize(bvh_A.nodes.size());
  if (meets_B.size() < bvh_B.nodes.size()) meets_B.resize(bvh_B.nodes.size());
  MarkNodesMeetingBall(bvh_A, 0, X_AB * bvh_B.ball_center, bvh_B.ball_radius, &meets_A);
  MarkNodesMeetingBall(bvh_B, 0, X_AB.Inverse() * bvh_A.ball_center, bvh_A.ball_radius, &meets_B);
  if (!meets_A[0] || !meets_B[0]) return;
  const PairQuery query{bvh_A, bvh_B, X_AB, meets_A, meets_B, &candidates->pairs};
  const PlacedBox root_B = Place(bvh_B.nodes[0].box, X_AB);
  DescendPair(query, 0, 0, root_B, Relate(bvh_A.nodes[0].box.R, root_B.R));
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
