// The bounding-volume hierarchy (engine/hydroelastic/bvh.h): its structure, the box-box test
// against GJK on the same boxes (engine/geometry/gjk_distance.h), and the queries against
// brute force over all elements.

#include "engine/hydroelastic/bvh.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/gjk_distance.h"
#include "tests/hydroelastic/test_meshes.h"
#include "tests/support/allocation_counter.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Vector3d;
using math::RigidTransform;

/// A triangle soup: n random triangles of size ~`size` in [-1, 1]^3 (normals not needed).
SurfaceMesh RandomTriangles(int n, double size, std::mt19937* engine) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  SurfaceMesh mesh;
  for (int f = 0; f < n; ++f) {
    const Vector3d c(u(*engine), u(*engine), u(*engine));
    for (int k = 0; k < 3; ++k) {
      mesh.vertices.push_back(c + size * Vector3d(u(*engine), u(*engine), u(*engine)));
    }
    mesh.triangles.emplace_back(3 * f, 3 * f + 1, 3 * f + 2);
  }
  return mesh;
}

/// The leaf box of every element, by element index.
std::vector<Aabb> LeafBoxes(const Bvh& bvh, int num_elements) {
  std::vector<Aabb> boxes(num_elements);
  std::vector<int> count(num_elements, 0);
  for (const BvhNode& node : bvh.nodes) {
    if (node.element < 0) continue;
    boxes[node.element] = node.box;
    ++count[node.element];
  }
  for (int c : count) CHECK(c == 1);
  return boxes;
}

/// Signed separation of two boxes by GJK [m]: > 0 apart (a lower bound of the distance), < 0
/// overlapping, in between when GJK cannot tell (touching within 1e-9 m).
double GjkSeparation(const Aabb& box_A, const RigidTransform& X_WA, const Aabb& box_B,
                     const RigidTransform& X_WB) {
  auto shape = [](const Aabb& box) {
    geometry::Geometry g;
    g.type = geometry::ShapeType::kBox;
    g.size = 2.0 * box.half_size.cwiseMax(1e-9);  // a flat box as a 1 nm thick one
    return geometry::ContactShape(g);
  };
  const RigidTransform X_WAc = X_WA * RigidTransform{Eigen::Matrix3d::Identity(), box_A.center};
  const RigidTransform X_WBc = X_WB * RigidTransform{Eigen::Matrix3d::Identity(), box_B.center};
  const geometry::GjkResult r =
      geometry::CalcGjkDistance(shape(box_A), X_WAc, shape(box_B), X_WBc, 1e-12);
  return r.overlapping ? -1.0 : r.lower;
}

TEST_CASE("BVH: every element in one leaf, boxes nested and tight, depth logarithmic",
          "[hydroelastic]") {
  std::mt19937 engine(21);
  const PressureField field =
      test::MakeJitteredBoxField(Vector3d(0.3, 0.2, 0.1), Eigen::Vector3i(5, 4, 3), 1e5, 0.15, 1);
  const VolumeMesh& mesh = field.mesh;
  const Bvh bvh = BuildBvh(mesh);
  const int n = static_cast<int>(mesh.tets.size());
  REQUIRE(static_cast<int>(bvh.nodes.size()) == 2 * n - 1);
  const std::vector<Aabb> leaf = LeafBoxes(bvh, n);
  for (int t = 0; t < n; ++t) {
    Vector3d lo = mesh.vertices[mesh.tets[t][0]], hi = lo;
    for (int v : mesh.tets[t]) {
      lo = lo.cwiseMin(mesh.vertices[v]);
      hi = hi.cwiseMax(mesh.vertices[v]);
    }
    CHECK((leaf[t].center - 0.5 * (lo + hi)).norm() < 1e-15);
    CHECK((leaf[t].half_size - 0.5 * (hi - lo)).norm() < 1e-15);
  }
  // Children inside parents; the depth of a median split is ceil(log2 n).
  std::vector<std::pair<int, int>> stack = {{0, 0}};
  int max_depth = 0;
  while (!stack.empty()) {
    const auto [i, depth] = stack.back();
    stack.pop_back();
    max_depth = std::max(max_depth, depth);
    const BvhNode& node = bvh.nodes[i];
    if (node.element >= 0) continue;
    for (int c : {node.left, node.right}) {
      const Aabb& child = bvh.nodes[c].box;
      CHECK(((child.center - child.half_size) - (node.box.center - node.box.half_size))
                .minCoeff() >= -1e-15);
      CHECK(((node.box.center + node.box.half_size) - (child.center + child.half_size))
                .minCoeff() >= -1e-15);
      stack.push_back({c, depth + 1});
    }
  }
  CHECK(max_depth == static_cast<int>(std::ceil(std::log2(n))));
  CHECK(BuildBvh(VolumeMesh()).nodes.empty());
}

TEST_CASE("BVH: the separating-axis box test agrees with GJK", "[hydroelastic]") {
  std::mt19937 engine(22);
  std::uniform_real_distribution<double> u(0.01, 0.5);
  int overlapping = 0, apart = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const Aabb a{Vector3d(u(engine), u(engine), u(engine)), Vector3d(u(engine), u(engine), u(engine))};
    const Aabb b{Vector3d(u(engine), u(engine), u(engine)), Vector3d(u(engine), u(engine), u(engine))};
    const RigidTransform X_WA = test::RandomPose(&engine, 0.5);
    const RigidTransform X_WB = test::RandomPose(&engine, 0.5);
    const double separation = GjkSeparation(a, X_WA, b, X_WB);
    if (std::abs(separation) < 1e-9) continue;
    const bool overlap = BoxesOverlap(a, b, X_WA.Inverse() * X_WB);
    CHECK(overlap == (separation < 0.0));
    (overlap ? overlapping : apart)++;
  }
  CHECK(overlapping > 300);
  CHECK(apart > 300);
}

TEST_CASE("BVH: the pair query returns exactly the pairs of overlapping leaf boxes",
          "[hydroelastic]") {
  std::mt19937 engine(23);
  const PressureField field =
      test::MakeJitteredBoxField(Vector3d(0.5, 0.4, 0.3), Eigen::Vector3i(4, 3, 3), 1e5, 0.15, 2);
  const Bvh bvh_A = BuildBvh(field.mesh);
  const SurfaceMesh soup = RandomTriangles(120, 0.15, &engine);
  const Bvh bvh_B = BuildBvh(soup);
  const int na = static_cast<int>(field.mesh.tets.size());
  const int nb = static_cast<int>(soup.triangles.size());
  const std::vector<Aabb> leaf_A = LeafBoxes(bvh_A, na), leaf_B = LeafBoxes(bvh_B, nb);
  BvhCandidates candidates;
  for (int trial = 0; trial < 6; ++trial) {
    const RigidTransform X_WA = test::RandomPose(&engine, 0.2);
    const RigidTransform X_WB = test::RandomPose(&engine, 0.2);
    FindOverlappingElements(bvh_A, bvh_B, X_WA.Inverse() * X_WB, &candidates.pairs);
    std::vector<std::pair<int, int>> found;
    for (const ElementPair& p : candidates.pairs) found.push_back({p.a, p.b});
    std::sort(found.begin(), found.end());
    CHECK(std::adjacent_find(found.begin(), found.end()) == found.end());
    int expected = 0;
    for (int a = 0; a < na; ++a) {
      for (int b = 0; b < nb; ++b) {
        const double separation = GjkSeparation(leaf_A[a], X_WA, leaf_B[b], X_WB);
        if (std::abs(separation) < 1e-9) continue;  // touching: either answer is right
        const bool listed = std::binary_search(found.begin(), found.end(), std::make_pair(a, b));
        CHECK(listed == (separation < 0.0));
        expected += separation < 0.0;
      }
    }
    CHECK(expected > 20);
  }
}

TEST_CASE("BVH: plane queries return every element that meets the plane or lies below",
          "[hydroelastic]") {
  std::mt19937 engine(24);
  std::normal_distribution<double> g;
  const PressureField field =
      test::MakeJitteredBoxField(Vector3d(0.5, 0.4, 0.3), Eigen::Vector3i(4, 4, 3), 1e5, 0.15, 3);
  const VolumeMesh& mesh = field.mesh;
  const Bvh bvh = BuildBvh(mesh);
  const std::vector<Aabb> leaf = LeafBoxes(bvh, static_cast<int>(mesh.tets.size()));
  BvhCandidates candidates;
  for (int trial = 0; trial < 20; ++trial) {
    const Vector3d n = 3.0 * Vector3d(g(engine), g(engine), g(engine));  // not unit
    const double d = 0.2 * g(engine);
    for (const bool below : {false, true}) {
      if (below) {
        FindElementsBelowPlane(bvh, n, d, &candidates.elements);
      } else {
        FindElementsCrossingPlane(bvh, n, d, &candidates.elements);
      }
      std::vector<int> found = candidates.elements;
      std::sort(found.begin(), found.end());
      CHECK(std::adjacent_find(found.begin(), found.end()) == found.end());
      for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
        // The element's heights, and its leaf box's from the box's 8 corners.
        double lo = INFINITY, hi = -INFINITY, box_lo = INFINITY, box_hi = -INFINITY;
        for (int v : mesh.tets[t]) {
          lo = std::min(lo, n.dot(mesh.vertices[v]) + d);
          hi = std::max(hi, n.dot(mesh.vertices[v]) + d);
        }
        for (int c = 0; c < 8; ++c) {
          const Vector3d s(c & 1 ? 1 : -1, c & 2 ? 1 : -1, c & 4 ? 1 : -1);
          const double h = n.dot(leaf[t].center + s.cwiseProduct(leaf[t].half_size)) + d;
          box_lo = std::min(box_lo, h);
          box_hi = std::max(box_hi, h);
        }
        const bool listed = std::binary_search(found.begin(), found.end(), t);
        const bool element_meets = below ? lo <= 0.0 : (lo <= 0.0 && hi >= 0.0);
        const bool box_meets = below ? box_lo <= 0.0 : (box_lo <= 0.0 && box_hi >= 0.0);
        if (element_meets) CHECK(listed);
        if (std::abs(box_lo) > 1e-12 && std::abs(box_hi) > 1e-12) CHECK(listed == box_meets);
      }
    }
  }
}

TEST_CASE("BVH: warmed-up queries do not allocate", "[hydroelastic]") {
  std::mt19937 engine(25);
  const PressureField field =
      test::MakeBoxField(Vector3d(0.5, 0.4, 0.3), Eigen::Vector3i(4, 3, 3), 1e5);
  const Bvh bvh = BuildBvh(field.mesh);
  BvhCandidates candidates;
  const RigidTransform X_AB{math::RotationFromRpy(Vector3d(0.1, 0.2, 0.3)), Vector3d(0.1, 0, 0)};
  FindOverlappingElements(bvh, bvh, X_AB, &candidates.pairs);
  FindElementsBelowPlane(bvh, Vector3d::UnitZ(), 0.0, &candidates.elements);
  REQUIRE(!candidates.pairs.empty());
  REQUIRE(!candidates.elements.empty());
  const std::size_t before = testing::AllocationCount();
  FindOverlappingElements(bvh, bvh, X_AB, &candidates.pairs);
  FindElementsBelowPlane(bvh, Vector3d::UnitZ(), 0.0, &candidates.elements);
  FindElementsCrossingPlane(bvh, Vector3d::UnitZ(), 0.1, &candidates.elements);
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::hydroelastic
