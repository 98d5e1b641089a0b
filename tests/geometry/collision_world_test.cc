// CollisionWorld (engine/geometry/collision_world.h): filtering rules, the margin in the
// broad phase, visual-only geometry, output order and determinism, and the topology helpers
// of collision_filter.h.

#include "engine/geometry/collision_world.h"

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "tests/geometry/contact_test_shapes.h"

namespace csim::geometry {
namespace {

using namespace test;  // NOLINT
using Eigen::Vector3d;
using math::RigidTransform;

CollisionObjectSpec Spec(Geometry g, int body, const RigidTransform& X_BG = RigidTransform()) {
  g.X_BG = X_BG;
  return {g, body};
}

/// A filter for nb free bodies (all may collide with the world and each other).
CollisionFilter FreeBodies(int nb) {
  return CollisionFilter(std::vector<int>(nb, -1), std::vector<bool>(nb, true),
                         std::vector<bool>(nb, false));
}

std::vector<PointContact> Find(CollisionWorld& world, const std::vector<RigidTransform>& X_WB,
                               double margin = 1e-3) {
  world.UpdatePoses(X_WB);
  std::vector<PointContact> out;
  world.FindContacts(margin, &out);
  return out;
}

TEST_CASE("World: ground contacts carry indices, bodies and the halfspace as A", "[collision]") {
  const std::vector<CollisionObjectSpec> specs = {
      Spec(Halfspace(), -1), Spec(Sphere(0.1), 0), Spec(Box(0.2, 0.2, 0.2), 1)};
  CollisionWorld world(specs, FreeBodies(2));
  CHECK(world.num_geometries() == 3);
  const auto c = Find(world, {At(0, 0, 0.099), At(1, 0, 0.0995)});
  REQUIRE(c.size() == 5);
  CHECK(std::make_tuple(c[0].geometry_a, c[0].geometry_b, c[0].body_a, c[0].body_b) ==
        std::make_tuple(0, 1, -1, 0));
  CHECK(c[0].phi0 == Approx(-1e-3));
  for (int i = 1; i < 5; ++i) {
    CHECK(std::make_tuple(c[i].geometry_a, c[i].geometry_b, c[i].body_a, c[i].body_b) ==
          std::make_tuple(0, 2, -1, 1));
    CHECK(c[i].phi0 == Approx(-5e-4));
    CHECK(c[i].nhat_AB_W.isApprox(Vector3d::UnitZ()));
  }
}

TEST_CASE("World: the margin enters the broad phase, beyond it nothing", "[collision]") {
  const std::vector<CollisionObjectSpec> specs = {Spec(Sphere(0.1), 0), Spec(Sphere(0.1), 1),
                                                  Spec(Box(0.2, 0.2, 0.2), 2)};
  CollisionWorld world(specs, FreeBodies(3));
  // Gaps along x (the bounding boxes are apart by the same gaps): sphere-sphere 0.5 mm,
  // sphere-box 0.8 mm; then the box moves to 1.2 mm.
  std::vector<RigidTransform> X = {At(0, 0, 0), At(0.2005, 0, 0), At(0.4013, 0, 0)};
  auto c = Find(world, X);
  REQUIRE(c.size() == 2);
  CHECK(std::make_pair(c[0].geometry_a, c[0].geometry_b) == std::make_pair(0, 1));
  CHECK(c[0].phi0 == Approx(5e-4).margin(1e-12));
  CHECK(std::make_pair(c[1].geometry_a, c[1].geometry_b) == std::make_pair(1, 2));
  CHECK(c[1].phi0 == Approx(8e-4).margin(1e-12));
  X[2] = At(0.4017, 0, 0);
  c = Find(world, X);
  REQUIRE(c.size() == 1);
  CHECK(c[0].geometry_b == 1);
  // A larger margin brings the box back.
  CHECK(Find(world, X, 2e-3).size() == 2);
}

TEST_CASE("World: filtering rules", "[collision]") {
  SECTION("geometries of one body never collide") {
    CollisionWorld world({Spec(Sphere(0.1), 0), Spec(Sphere(0.1), 0, At(0.05, 0, 0))},
                         FreeBodies(1));
    CHECK(Find(world, {At(0, 0, 1)}).empty());
  }
  SECTION("parent and child: only with collide: true") {
    const std::vector<CollisionObjectSpec> specs = {Spec(Sphere(0.1), 0), Spec(Sphere(0.1), 1)};
    const std::vector<RigidTransform> X = {At(0, 0, 1), At(0.15, 0, 1)};
    CollisionWorld without(specs, CollisionFilter({-1, 0}, {true, false}, {false, false}));
    CHECK(Find(without, X).empty());
    CollisionWorld with(specs, CollisionFilter({-1, 0}, {true, true}, {false, false}));
    CHECK(Find(with, X).size() == 1);
    // Grandparent and grandchild are not joined directly: they collide.
    CollisionWorld chain({Spec(Sphere(0.1), 0), Spec(Sphere(0.01), 1), Spec(Sphere(0.1), 2)},
                         CollisionFilter({-1, 0, 1}, {true, false, false}, {false, false, false}));
    const auto c = Find(chain, {At(0, 0, 1), At(0, 0, 3), At(0.15, 0, 1)});
    REQUIRE(c.size() == 1);
    CHECK(std::make_pair(c[0].body_a, c[0].body_b) == std::make_pair(0, 2));
  }
  SECTION("a body jointed to the world ignores world geometry unless collide") {
    const std::vector<CollisionObjectSpec> specs = {Spec(Halfspace(), -1), Spec(Sphere(0.1), 0)};
    CollisionWorld pinned(specs, CollisionFilter({-1}, {false}, {false}));
    CHECK(Find(pinned, {At(0, 0, 0.05)}).empty());
    CollisionWorld free_body(specs, CollisionFilter({-1}, {true}, {false}));
    CHECK(Find(free_body, {At(0, 0, 0.05)}).size() == 1);
  }
  SECTION("objects fixed to the world never collide with each other") {
    // Body 0 welded to the world, body 1 welded to body 0 (collide: true on its joint),
    // body 2 free: only body 2 touches anything.
    const std::vector<int> parent = {-1, 0, -1};
    const std::vector<bool> welded = WeldedToWorld(parent, {true, true, false});
    CHECK(welded == std::vector<bool>{true, true, false});
    const std::vector<CollisionObjectSpec> specs = {
        Spec(Halfspace(), -1), Spec(Box(1, 1, 1), -1, At(5, 0, 0)), Spec(Box(1, 1, 1), 0),
        Spec(Box(1, 1, 1), 1), Spec(Sphere(0.1), 2)};
    CollisionWorld world(specs, CollisionFilter(parent, {true, true, true}, welded));
    const auto c = Find(world, {At(4.6, 0, 0), At(4.2, 0, 0.2), At(20, 0, 0.05)});
    REQUIRE(c.size() == 1);
    CHECK(std::make_pair(c[0].geometry_a, c[0].geometry_b) == std::make_pair(0, 4));
  }
  SECTION("visual-only geometry never enters") {
    Geometry visual = Sphere(0.5);
    visual.collide = false;
    CollisionWorld world({Spec(Halfspace(), -1), Spec(visual, 0), Spec(Sphere(0.1), 1)},
                         FreeBodies(2));
    const auto c = Find(world, {At(0, 0, 0), At(0.2, 0, 0.095)});
    REQUIRE(c.size() == 1);
    CHECK(std::make_pair(c[0].geometry_a, c[0].geometry_b) == std::make_pair(0, 2));
    CHECK(world.geometry_pose(1).p.isZero());
  }
}

TEST_CASE("Filter helpers: welded chains and excluded pairs", "[collision]") {
  // 0 fixed to world, 1 revolute on 0, 2 fixed on 1 (moves with 1), 3 fixed on 0.
  const std::vector<int> parent = {-1, 0, 1, 0};
  CHECK(WeldedToWorld(parent, {true, false, true, true}) ==
        std::vector<bool>{true, false, false, true});
  const CollisionFilter filter(parent, {false, false, true, false},
                               WeldedToWorld(parent, {true, false, true, true}));
  CHECK(filter.excluded_pairs() == std::vector<std::pair<int, int>>{{-1, 0}, {0, 1}, {0, 3}});
  CHECK(filter.Excludes(0, 1));
  CHECK(!filter.Excludes(1, 2));  // collide: true
  CHECK(filter.Excludes(-1, 3));  // both fixed
  CHECK(filter.Excludes(0, 3));
  CHECK(!filter.Excludes(-1, 1));
  CHECK(filter.Excludes(2, 2));
}

// A pile of mixed shapes, overlapping in many ways.
std::vector<CollisionObjectSpec> PileSpecs() {
  std::vector<CollisionObjectSpec> specs = {Spec(Halfspace(), -1)};
  const Geometry shapes[] = {Sphere(0.1),   Box(0.2, 0.15, 0.1), Cylinder(0.08, 0.2),
                             Capsule(0.05, 0.2), Ellipsoid(0.1, 0.07, 0.05), MeshCube(0.15)};
  for (int i = 0; i < 24; ++i) specs.push_back(Spec(shapes[i % 6], i));
  return specs;
}

std::vector<RigidTransform> PilePoses(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<RigidTransform> X;
  for (int i = 0; i < 24; ++i) {
    X.push_back(Rotated(Vector3d(u(rng), u(rng), u(rng)), 3 * u(rng),
                        Vector3d(0.3 * u(rng), 0.3 * u(rng), 0.15 + 0.15 * u(rng))));
  }
  return X;
}

/// Contacts with geometry indices mapped through `map` and each pair reordered so that
/// a < b, then sorted: a canonical form to compare worlds built from permuted specs.
std::vector<PointContact> Canonical(std::vector<PointContact> c, const std::vector<int>& map) {
  for (PointContact& p : c) {
    p.geometry_a = map[p.geometry_a];
    p.geometry_b = map[p.geometry_b];
    if (p.geometry_a > p.geometry_b) {
      std::swap(p.geometry_a, p.geometry_b);
      std::swap(p.body_a, p.body_b);
      p.nhat_AB_W = -p.nhat_AB_W;
    }
  }
  SortByPosition(&c);
  std::stable_sort(c.begin(), c.end(), [](const PointContact& x, const PointContact& y) {
    return std::make_pair(x.geometry_a, x.geometry_b) < std::make_pair(y.geometry_a, y.geometry_b);
  });
  return c;
}

TEST_CASE("World: deterministic, sorted output", "[collision]") {
  const std::vector<CollisionObjectSpec> specs = PileSpecs();
  const std::vector<RigidTransform> X = PilePoses(7);
  CollisionWorld first(specs, FreeBodies(24));
  const auto reference = Find(first, X);
  REQUIRE(reference.size() > 20);
  for (size_t i = 0; i < reference.size(); ++i) {
    CHECK(reference[i].geometry_a < reference[i].geometry_b);
    CHECK(reference[i].nhat_AB_W.norm() == Approx(1.0).margin(1e-12));
    CHECK(reference[i].phi0 < 1e-3);
    if (i > 0) {
      CHECK(std::make_pair(reference[i - 1].geometry_a, reference[i - 1].geometry_b) <=
            std::make_pair(reference[i].geometry_a, reference[i].geometry_b));
    }
  }
  SECTION("same scene built twice, after a different pose history: identical") {
    CollisionWorld second(specs, FreeBodies(24));
    for (unsigned seed : {1u, 2u, 3u}) Find(second, PilePoses(seed));
    const auto again = Find(second, X);
    REQUIRE(again.size() == reference.size());
    for (size_t i = 0; i < again.size(); ++i) {
      CHECK(again[i].geometry_a == reference[i].geometry_a);
      CHECK(again[i].geometry_b == reference[i].geometry_b);
      CHECK(again[i].phi0 == reference[i].phi0);
      CHECK(again[i].p_WC == reference[i].p_WC);
      CHECK(again[i].nhat_AB_W == reference[i].nhat_AB_W);
    }
  }
  SECTION("specs inserted in reverse order: the same contacts") {
    std::vector<CollisionObjectSpec> reversed(specs.rbegin(), specs.rend());
    std::vector<int> map(specs.size());  // reversed index -> original index
    for (size_t i = 0; i < map.size(); ++i) map[i] = static_cast<int>(specs.size() - 1 - i);
    CollisionWorld world(reversed, FreeBodies(24));
    const auto a = Canonical(reference, std::vector<int>([&] {
      std::vector<int> id(specs.size());
      for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<int>(i);
      return id;
    }()));
    const auto b = Canonical(Find(world, X), map);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].geometry_a == b[i].geometry_a);
      CHECK(a[i].geometry_b == b[i].geometry_b);
      CHECK(a[i].phi0 == Approx(b[i].phi0).margin(1e-12));
      CHECK((a[i].p_WC - b[i].p_WC).norm() < 1e-12);
      CHECK((a[i].nhat_AB_W - b[i].nhat_AB_W).norm() < 1e-12);
    }
  }
}

TEST_CASE("World: geometry offsets and rotated bodies", "[collision]") {
  // A box carried 0.5 m above its body origin, body rotated 90 degrees about x:
  // the box ends up at y = -0.5 beside the origin, touching a sphere there.
  CollisionWorld world({Spec(Box(0.2, 0.2, 0.2), 0, At(0, 0, 0.5)), Spec(Sphere(0.1), 1)},
                       FreeBodies(2));
  const RigidTransform X_W0 = Rotated(Vector3d::UnitX(), 3.14159265358979323846 / 2,
                                      Vector3d::Zero());
  const auto c = Find(world, {X_W0, At(0, -0.301, 0)});
  REQUIRE(c.size() == 1);
  CHECK(c[0].phi0 == Approx(-1e-3).margin(1e-12));
  CHECK(c[0].nhat_AB_W.isApprox(Vector3d(0, 1, 0), 1e-12));
  CHECK(world.geometry_pose(0).p.isApprox(Vector3d(0, -0.5, 0), 1e-12));
}

TEST_CASE("World: pair counts of the last query", "[collision]") {
  // Designed so that each count is known from the geometry alone (margin 1 mm):
  //   box 0 rests on the floor (0.5 mm deep) and box 3 on box 0 (1 mm deep): two touching
  //   pairs, the second of two boxes;
  //   boxes 1 and 2, turned 45 degrees about z, are diamonds |x| + |y| <= 0.1 sqrt(2) in
  //   plan, 0.2 apart along x and y: their bounds overlap (0.2 < 2 * 0.1414) but the faces
  //   facing each other are 0.2 sqrt(2) - 0.2 = 8.3 cm apart: a candidate pair of two boxes
  //   that does not touch;
  //   spheres 4 and 5 (r = 0.1) are 0.13 apart along every axis: bounds overlap, centres
  //   0.225 apart, a candidate pair without extended features that does not touch;
  //   sphere 6 is far from everything.
  const double kQuarterTurn = 3.14159265358979323846 / 4;
  const std::vector<CollisionObjectSpec> specs = {
      Spec(Halfspace(), -1),        Spec(Box(0.2, 0.2, 0.2), 0), Spec(Box(0.2, 0.2, 0.2), 1),
      Spec(Box(0.2, 0.2, 0.2), 2), Spec(Box(0.2, 0.2, 0.2), 3), Spec(Sphere(0.1), 4),
      Spec(Sphere(0.1), 5),         Spec(Sphere(0.1), 6)};
  CollisionWorld world(specs, FreeBodies(7));
  CHECK(world.counts().narrow_phase_pairs == 0);  // before any query
  std::vector<RigidTransform> X = {
      At(0, 0, 0.0995),
      Rotated(Vector3d::UnitZ(), kQuarterTurn, Vector3d(1.0, 0.0, 0.5)),
      Rotated(Vector3d::UnitZ(), kQuarterTurn, Vector3d(1.2, 0.2, 0.5)),
      At(0, 0, 0.2985),
      At(-0.5, 0, 0.5),
      At(-0.37, 0.13, 0.63),
      At(5, 5, 5)};
  CHECK(Find(world, X).size() == 8);  // four corners on the floor, four face on face
  CHECK(world.counts().narrow_phase_pairs == 4);
  CHECK(world.counts().touching_pairs == 2);
  CHECK(world.counts().feature_pairs == 2);
  // Box 3 lifted 1 cm: its bounds leave box 0's (9 mm beyond the margin), so one candidate
  // pair of two boxes and one touching pair less; the counts are of the last query only.
  X[3] = At(0, 0, 0.3085);
  CHECK(Find(world, X).size() == 4);
  CHECK(world.counts().narrow_phase_pairs == 3);
  CHECK(world.counts().touching_pairs == 1);
  CHECK(world.counts().feature_pairs == 1);
}

}  // namespace
}  // namespace csim::geometry
