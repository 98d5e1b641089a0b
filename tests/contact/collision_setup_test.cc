// contact::HydroelasticFallbackPairs: the pairs `csim check` reports as keeping point contact
// although one side has a hydroelastic block (geometry::HasContactSurface false), and only
// those: a pair with a contact surface, a filtered pair and a pair of plain geometries are
// not listed.

#include "engine/contact/collision_setup.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/io/scene_loader.h"

namespace csim::contact {
namespace {

bool Contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& line : lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

TEST_CASE("csim check's list of hydroelastic pairs that keep point contact", "[collision_setup]") {
  const io::LoadedScene scene = io::LoadSceneFromText(R"(
csim: 1
materials:
  pad: {hydroelastic_modulus: 1.0e5}
world:
  geometry:
    - {shape: halfspace, hydroelastic: {compliance: rigid}}
bodies:
  - name: soft
    mass: 1
    geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: pad,
                hydroelastic: {compliance: compliant}}]
  - name: hard
    mass: 1
    geometry: [{shape: box, size: [0.1, 0.1, 0.1], hydroelastic: {compliance: rigid}}]
  - name: plain
    mass: 1
    geometry: [{shape: sphere, radius: 0.05}]
  - name: plain2
    mass: 1
    geometry: [{shape: sphere, radius: 0.05}]
)",
                                                      "t.yaml", {});
  const std::vector<std::string> pairs = HydroelasticFallbackPairs(scene.model);
  // hard against the world's rigid halfspace: both rigid.
  CHECK(Contains(pairs, "halfspace of the world and box of 'hard': both rigid"));
  // plain geometry against each hydroelastic one.
  CHECK(Contains(pairs, "halfspace of the world and sphere of 'plain': only one side"));
  CHECK(Contains(pairs, "box of 'soft' and sphere of 'plain': only one side"));
  CHECK(Contains(pairs, "box of 'hard' and sphere of 'plain2': only one side"));
  // Not listed: soft against the floor and against hard (contact surfaces), plain against
  // plain2 (no hydroelastic side).
  CHECK(!Contains(pairs, "halfspace of the world and box of 'soft'"));
  CHECK(!Contains(pairs, "box of 'soft' and box of 'hard'"));
  CHECK(!Contains(pairs, "sphere of 'plain' and sphere of 'plain2'"));
  CHECK(pairs.size() == 7);  // hard-world, plain and plain2 each against world, soft, hard
}

}  // namespace
}  // namespace csim::contact
