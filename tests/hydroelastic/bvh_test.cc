// The bounding-volume hierarchy (engine/hydroelastic/bvh.h): its structure, the box-box test
// against GJK on the same boxes (engine/geometry/gjk_distance.h), and the queries against
// brute force over all elements, with GJK on the elements themselves as the reference of
// which element pairs intersect.

#include "engine/hydroelastic/bvh.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/geometry/contact_shape.h"
#include "engine/geometry/gjk_distance.h"
#include "engine/hydroelastic/compliant_meshes.h"
#include "tests/hydroelastic/test_meshes.h"
#include "tests/support/allocation_counter.h"

namespace csim::hydroelastic {
namespace {

using Eigen::Matrix3d;
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

/// A random box: centre in [-0.5, 0.5]^3, half sizes in [0.01, 0.5], random axes.
Obb RandomBox(std::mt19937* engine) {
  std::uniform_real_distribution<double> u(0.01, 0.5);
  const RigidTransform X = test::RandomPose(engine, 0.5);
  return {X.R, X.p, Vector3d(u(*engine), u(*engine), u(*engine))};
}

/// The leaf box of every element, by element index.
std::vector<Obb> LeafBoxes(const Bvh& bvh, int num_elements) {
  std::vector<Obb> boxes(num_elements);
  std::vector<int> count(num_elements, 0);
  for (const BvhNode& node : bvh.nodes) {
    if (node.element < 0) continue;
    boxes[node.element] = node.box;
    ++count[node.element];
  }
  for (int c : count) CHECK(c == 1);
  return boxes;
}

/// The box's coordinates of point x (geometry frame): inside when |q_k| <= half_size_k.
Vector3d BoxCoordinates(const Obb& box, const Vector3d& x) {
  return box.R.transpose() * (x - box.center);
}

/// The GJK result of two convex point sets in the world (their hulls), as convex meshes.
geometry::GjkResult GjkOfHulls(const std::vector<Vector3d>& a_W, const std::vector<Vector3d>& b_W) {
  auto shape = [](const std::vector<Vector3d>& points) {
    geometry::Geometry g;
    g.type = geometry::ShapeType::kMesh;
    g.mesh.vertices = points;
    return geometry::ContactShape(g);
  };
  return geometry::CalcGjkDistance(shape(a_W), RigidTransform(), shape(b_W), RigidTransform(),
                                   1e-12);
}

/// Signed separation of two boxes by GJK [m]: > 0 apart (a lower bound of the distance), < 0
/// overlapping, in between when GJK cannot tell (touching within 1e-9 m).
double GjkSeparation(const Obb& box_A, const RigidTransform& X_WA, const Obb& box_B,
                     const RigidTransform& X_WB) {
  auto corners = [](const Obb& box, const RigidTransform& X_WG) {
    std::vector<Vector3d> points;
    for (int c = 0; c < 8; ++c) {
      const Vector3d s(c & 1 ? 1 : -1, c & 2 ? 1 : -1, c & 4 ? 1 : -1);
      points.push_back(X_WG * (box.center + box.R * s.cwiseProduct(box.half_size)));
    }
    return points;
  };
  const geometry::GjkResult r = GjkOfHulls(corners(box_A, X_WA), corners(box_B, X_WB));
  return r.overlapping ? -1.0 : r.lower;
}

/// The world vertices of element e (3 or 4 of them) of a mesh at pose X_WG.
template <typename Elements>
std::vector<Vector3d> ElementVertices(const std::vector<Vector3d>& vertices,
                                      const Elements& elements, int e, const RigidTransform& X_WG) {
  std::vector<Vector3d> points;
  for (int k = 0; k < static_cast<int>(elements[e].size()); ++k) {
    points.push_back(X_WG * vertices[elements[e][k]]);
  }
  return points;
}

TEST_CASE("BVH: every element in one leaf, inside every box above it, depth logarithmic",
          "[hydroelastic]") {
  const PressureField field =
      test::MakeJitteredBoxField(Vector3d(0.3, 0.2, 0.1), Eigen::Vector3i(5, 4, 3), 1e5, 0.15, 1);
  const PressureField sphere = MakeCompliantSphere(0.05, 1e5, 0.01, 0.0);
  for (const VolumeMesh* mesh : {&field.mesh, &sphere.mesh}) {
    const Bvh bvh = BuildBvh(*mesh);
    const int n = static_cast<int>(mesh->tets.size());
    REQUIRE(static_cast<int>(bvh.nodes.size()) == 2 * n - 1);
    const std::vector<Obb> leaf = LeafBoxes(bvh, n);
    // Each leaf box is tight: its vertices reach both faces of every axis.
    for (int t = 0; t < n; ++t) {
      Vector3d lo = Vector3d::Constant(INFINITY), hi = -lo;
      for (int v : mesh->tets[t]) {
        const Vector3d q = BoxCoordinates(leaf[t], mesh->vertices[v]);
        lo = lo.cwiseMin(q);
        hi = hi.cwiseMax(q);
      }
      CHECK((lo + leaf[t].half_size).cwiseAbs().maxCoeff() < 1e-14);
      CHECK((hi - leaf[t].half_size).cwiseAbs().maxCoeff() < 1e-14);
    }
    // Every node: orthonormal right-handed axes; every vertex of the elements below it inside
    // its box; the ball around every vertex. The depth of a median split is ceil(log2 n).
    std::vector<std::pair<int, int>> stack = {{0, 0}};
    int max_depth = 0;
    while (!stack.empty()) {
      const auto [i, depth] = stack.back();
      stack.pop_back();
      max_depth = std::max(max_depth, depth);
      const BvhNode& node = bvh.nodes[i];
      CHECK((node.box.R.transpose() * node.box.R - Matrix3d::Identity()).norm() < 1e-12);
      CHECK(node.box.R.determinant() > 0.0);
      CHECK(node.box.half_size.minCoeff() >= 0.0);
      std::vector<int> below;
      std::vector<int> pending = {i};
      while (!pending.empty()) {
        const int k = pending.back();
        pending.pop_back();
        if (bvh.nodes[k].element >= 0) {
          below.push_back(bvh.nodes[k].element);
        } else {
          pending.push_back(bvh.nodes[k].left);
          pending.push_back(bvh.nodes[k].right);
        }
      }
      for (int t : below) {
        for (int v : mesh->tets[t]) {
          const Vector3d q = BoxCoordinates(node.box, mesh->vertices[v]);
          CHECK((q.cwiseAbs() - node.box.half_size).maxCoeff() <= 0.0);
        }
      }
      if (node.element >= 0) continue;
      for (int c : {node.left, node.right}) {
        CHECK(bvh.nodes[c].same_axes_as_parent == (bvh.nodes[c].box.R == node.box.R));
        stack.push_back({c, depth + 1});
      }
    }
    CHECK(max_depth == static_cast<int>(std::ceil(std::log2(n))));
    CHECK_FALSE(bvh.nodes[0].same_axes_as_parent);
    for (const Vector3d& x : mesh->vertices) {
      CHECK((x - bvh.ball_center).norm() <= bvh.ball_radius);
    }
  }
  CHECK(BuildBvh(VolumeMesh()).nodes.empty());
}

TEST_CASE("BVH: a slanted tet gets a box along it, much smaller than its axis-aligned box",
          "[hydroelastic]") {
  // A spoke of the sparse sphere along the diagonal: its axis-aligned box is a cube.
  VolumeMesh mesh;
  const Vector3d u = Vector3d(1, 1, 1).normalized();
  const Vector3d v = Vector3d(1, -1, 0).normalized(), w = u.cross(v);
  mesh.vertices = {Vector3d::Zero(), u + 0.05 * v, u - 0.025 * v + 0.04 * w,
                   u - 0.025 * v - 0.04 * w};
  test::AddPositiveTet(&mesh, {0, 1, 2, 3});
  const Bvh bvh = BuildBvh(mesh);
  REQUIRE(bvh.nodes.size() == 1u);
  Vector3d lo = mesh.vertices[0], hi = lo;
  for (const Vector3d& x : mesh.vertices) {
    lo = lo.cwiseMin(x);
    hi = hi.cwiseMax(x);
  }
  const double aabb_volume = (hi - lo).prod();
  const double obb_volume = (2.0 * bvh.nodes[0].box.half_size).prod();
  CHECK(obb_volume < 0.05 * aabb_volume);
}

TEST_CASE("BVH: the separating-axis box test agrees with GJK", "[hydroelastic]") {
  std::mt19937 engine(22);
  int overlapping = 0, apart = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const Obb a = RandomBox(&engine), b = RandomBox(&engine);
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

/// Checks the pair query on meshes A and B (elements `elements_A`, `elements_B` over their
/// vertices) at poses X_WA, X_WB against brute force: no pair twice, every listed pair with
/// overlapping leaf boxes, and every pair of elements that intersect (GJK) listed. Returns the
/// number of intersecting pairs.
template <typename ElementsA, typename ElementsB>
int CheckPairQuery(const std::vector<Vector3d>& vertices_A, const ElementsA& elements_A,
                   const Bvh& bvh_A, const RigidTransform& X_WA,
                   const std::vector<Vector3d>& vertices_B, const ElementsB& elements_B,
                   const Bvh& bvh_B, const RigidTransform& X_WB, BvhCandidates* candidates) {
  const int na = static_cast<int>(elements_A.size());
  const int nb = static_cast<int>(elements_B.size());
  const std::vector<Obb> leaf_A = LeafBoxes(bvh_A, na), leaf_B = LeafBoxes(bvh_B, nb);
  const RigidTransform X_AB = X_WA.Inverse() * X_WB;
  FindOverlappingElements(bvh_A, bvh_B, X_AB, candidates);
  std::vector<std::pair<int, int>> found;
  for (const ElementPair& p : candidates->pairs) found.push_back({p.a, p.b});
  std::sort(found.begin(), found.end());
  CHECK(std::adjacent_find(found.begin(), found.end()) == found.end());
  for (const auto& [a, b] : found) CHECK(BoxesOverlap(leaf_A[a], leaf_B[b], X_AB));
  // The brute force: GJK on every pair whose world-aligned bounding boxes meet (boxes that
  // do not meet cannot hold intersecting hulls), each element's vertices made once.
  std::vector<std::vector<Vector3d>> x_B(nb);
  std::vector<Eigen::AlignedBox3d> box_B(nb);
  for (int b = 0; b < nb; ++b) {
    x_B[b] = ElementVertices(vertices_B, elements_B, b, X_WB);
    for (const Vector3d& x : x_B[b]) box_B[b].extend(x);
  }
  int intersecting = 0;
  for (int a = 0; a < na; ++a) {
    const std::vector<Vector3d> x_a = ElementVertices(vertices_A, elements_A, a, X_WA);
    Eigen::AlignedBox3d box_a;
    for (const Vector3d& x : x_a) box_a.extend(x);
    for (int b = 0; b < nb; ++b) {
      if (!box_a.intersects(box_B[b])) continue;
      const geometry::GjkResult r = GjkOfHulls(x_a, x_B[b]);
      if (!r.overlapping) continue;
      ++intersecting;
      INFO("elements " << a << ", " << b);
      CHECK(std::binary_search(found.begin(), found.end(), std::make_pair(a, b)));
    }
  }
  return intersecting;
}

TEST_CASE("BVH: the pair query lists every pair of intersecting elements", "[hydroelastic]") {
  std::mt19937 engine(23);
  BvhCandidates candidates;
  SECTION("tets against a triangle soup") {
    const PressureField field = test::MakeJitteredBoxField(
        Vector3d(0.5, 0.4, 0.3), Eigen::Vector3i(4, 3, 3), 1e5, 0.15, 2);
    const SurfaceMesh soup = RandomTriangles(120, 0.15, &engine);
    const Bvh bvh_A = BuildBvh(field.mesh), bvh_B = BuildBvh(soup);
    std::vector<std::array<int, 3>> triangles;
    for (const Eigen::Vector3i& f : soup.triangles) triangles.push_back({f[0], f[1], f[2]});
    for (int trial = 0; trial < 4; ++trial) {
      const RigidTransform X_WA = test::RandomPose(&engine, 0.2);
      const RigidTransform X_WB = test::RandomPose(&engine, 0.2);
      CHECK(CheckPairQuery(field.mesh.vertices, field.mesh.tets, bvh_A, X_WA, soup.vertices,
                           triangles, bvh_B, X_WB, &candidates) > 20);
    }
  }
  SECTION("two sparse spheres, whose balls prune the long boxes of their spokes") {
    const PressureField sphere = MakeCompliantSphere(0.05, 1e5, 0.02, 0.0);
    const Bvh bvh = BuildBvh(sphere.mesh);
    for (const double overlap : {0.006, 0.015, 0.03}) {
      const RigidTransform X_WA = test::RandomPose(&engine, 0.1);
      const Matrix3d R_AB = test::RandomPose(&engine, 0.0).R;
      const Vector3d direction = test::RandomPose(&engine, 0.0).R.col(0);
      const RigidTransform X_WB = X_WA * RigidTransform{R_AB, (0.1 - overlap) * direction};
      CHECK(CheckPairQuery(sphere.mesh.vertices, sphere.mesh.tets, bvh, X_WA,
                           sphere.mesh.vertices, sphere.mesh.tets, bvh, X_WB, &candidates) > 5);
    }
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
  const std::vector<Obb> leaf = LeafBoxes(bvh, static_cast<int>(mesh.tets.size()));
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
          const Vector3d corner = leaf[t].center + leaf[t].R * s.cwiseProduct(leaf[t].half_size);
          box_lo = std::min(box_lo, n.dot(corner) + d);
          box_hi = std::max(box_hi, n.dot(corner) + d);
        }
        const bool listed = std::binary_search(found.begin(), found.end(), t);
        const bool element_meets = below ? lo <= 0.0 : (lo <= 0.0 && hi >= 0.0);
        const bool box_meets = below ? box_lo <= 0.0 : (box_lo <= 0.0 && box_hi >= 0.0);
        if (element_meets) CHECK(listed);
        if (listed) CHECK(box_meets);
      }
    }
  }
}

TEST_CASE("BVH: warmed-up queries do not allocate", "[hydroelastic]") {
  const PressureField field =
      test::MakeBoxField(Vector3d(0.5, 0.4, 0.3), Eigen::Vector3i(4, 3, 3), 1e5);
  const Bvh bvh = BuildBvh(field.mesh);
  BvhCandidates candidates;
  const RigidTransform X_AB{math::RotationFromRpy(Vector3d(0.1, 0.2, 0.3)), Vector3d(0.1, 0, 0)};
  FindOverlappingElements(bvh, bvh, X_AB, &candidates);
  FindElementsBelowPlane(bvh, Vector3d::UnitZ(), 0.0, &candidates.elements);
  REQUIRE(!candidates.pairs.empty());
  REQUIRE(!candidates.elements.empty());
  const std::size_t before = testing::AllocationCount();
  FindOverlappingElements(bvh, bvh, X_AB, &candidates);
  FindElementsBelowPlane(bvh, Vector3d::UnitZ(), 0.0, &candidates.elements);
  FindElementsCrossingPlane(bvh, Vector3d::UnitZ(), 0.1, &candidates.elements);
  CHECK(testing::AllocationCount() - before == 0);
}

}  // namespace
}  // namespace csim::hydroelastic
