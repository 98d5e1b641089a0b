// FindDeepInitialOverlaps on scenes whose overlaps are known in closed form: a sphere of
// radius 50 placed where 0.05 was meant (depth 49.95 m into the ground), a plate on either
// side of 10 % of its thickness, a ball resting 1e-5 m into the ground, and pairs the
// collision filter drops (same body, jointed bodies, bodies welded to the world).

#include "engine/contact/initial_overlap.h"

#include <catch2/catch.hpp>

#include <string>

#include "engine/io/scene_loader.h"

namespace csim::contact {
namespace {

std::vector<DeepOverlap> OverlapsOf(const std::string& bodies_and_joints) {
  const std::string text =
      "csim: 1\nworld: {geometry: [{shape: halfspace}]}\n" + bodies_and_joints;
  return FindDeepInitialOverlaps(io::LoadSceneFromText(text, "test.yaml", {}).model);
}

TEST_CASE("a sphere of radius 50 where 0.05 was meant overlaps the ground by 49.95 m",
          "[initial_overlap]") {
  const auto overlaps = OverlapsOf(
      "bodies: [{name: ball, mass: 1, geometry: [{shape: sphere, radius: 50}],\n"
      "          pose: {position: [0, 0, 0.05]}}]\n");
  REQUIRE(overlaps.size() == 1);
  const DeepOverlap& o = overlaps[0];
  CHECK(o.body_a == -1);  // the ground, world geometry 0
  CHECK(o.geometry_a == 0);
  CHECK(o.body_b == 0);
  CHECK(o.geometry_b == 1);
  CHECK(o.depth == Approx(49.95).epsilon(1e-12));
  CHECK(o.width == 100.0);  // the sphere's diameter; the halfspace has no width
  CHECK_FALSE(o.thinner_is_a);
}

TEST_CASE("a ball resting 1e-5 m into the ground is no deep overlap", "[initial_overlap]") {
  CHECK(OverlapsOf("bodies: [{name: ball, mass: 1, geometry: [{shape: sphere, radius: 0.05}],\n"
                   "          pose: {position: [0, 0, 0.04999]}}]\n")
            .empty());
}

TEST_CASE("a plate is deep in the ground past 10 % of its thickness", "[initial_overlap]") {
  // A 1 x 1 x 0.1 plate: its thickness 0.1 m, not its size, sets the threshold 0.01 m.
  const std::string plate =
      "bodies: [{name: plate, mass: 1, geometry: [{shape: box, size: [1, 1, 0.1]}],\n"
      "          pose: {position: [0, 0, Z]}}]\n";
  std::string deep = plate, shallow = plate;
  deep.replace(deep.find('Z'), 1, "0.039");        // 0.011 m deep
  shallow.replace(shallow.find('Z'), 1, "0.041");  // 0.009 m deep
  const auto overlaps = OverlapsOf(deep);
  REQUIRE(overlaps.size() == 1);
  CHECK(overlaps[0].depth == Approx(0.011).epsilon(1e-9));
  CHECK(overlaps[0].width == 0.1);
  CHECK(OverlapsOf(shallow).empty());
}

TEST_CASE("two bodies overlapping deeply are one pair, sized by the thinner",
          "[initial_overlap]") {
  // A ball of radius 0.5 whose centre is 0.3 above a 0.2-thick slab's top face: 0.2 deep,
  // the whole slab's thickness.
  const auto overlaps = OverlapsOf(
      "bodies:\n"
      "  - {name: slab, mass: 1, geometry: [{shape: box, size: [2, 2, 0.2]}],\n"
      "     pose: {position: [0, 0, 5]}}\n"
      "  - {name: ball, mass: 1, geometry: [{shape: sphere, radius: 0.5}],\n"
      "     pose: {position: [0, 0, 5.4]}}\n");
  REQUIRE(overlaps.size() == 1);
  CHECK(overlaps[0].body_a == 0);
  CHECK(overlaps[0].body_b == 1);
  CHECK(overlaps[0].depth == Approx(0.2).epsilon(1e-9));
  CHECK(overlaps[0].width == 0.2);
  CHECK(overlaps[0].thinner_is_a);
}

TEST_CASE("pairs the collision filter drops never count as overlaps", "[initial_overlap]") {
  // Same body: two geometries through each other.
  CHECK(OverlapsOf("bodies: [{name: b, mass: 1, pose: {position: [0, 0, 1]}, geometry:\n"
                   "  [{shape: sphere, radius: 0.5}, {shape: box, size: [0.5, 0.5, 0.5]}]}]\n")
            .empty());
  // Parent and child of a revolute joint without `collide`, one inside the other.
  CHECK(OverlapsOf("bodies:\n"
                   "  - {name: upper, mass: 1, geometry: [{shape: sphere, radius: 0.3}],\n"
                   "     pose: {position: [0, 0, 2]}}\n"
                   "  - {name: lower, mass: 1, geometry: [{shape: sphere, radius: 0.3}]}\n"
                   "joints:\n"
                   "  - {name: hinge, type: revolute, parent: upper, child: lower,\n"
                   "     pose: {position: [0, 0, -0.1]}}\n")
            .empty());
  // A base welded to the world, half sunk in the ground: world with world.
  CHECK(OverlapsOf("bodies: [{name: base, mass: 1, geometry: [{shape: box, size: [1, 1, 1]}]}]\n"
                   "joints: [{name: weld, type: fixed, parent: world, child: base}]\n")
            .empty());
}

}  // namespace
}  // namespace csim::contact
