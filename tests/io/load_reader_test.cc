// The scene's `loads:` (engine/io/load_reader.h): bodies, points, frames and signals
// resolved into the model, and each rule broken located at the node at fault (the marker
// string in each scene names it).

#include "engine/io/load_reader.h"

#include <catch2/catch.hpp>

#include <string>

#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using test::CheckRejectedAt;

std::string Scene(const std::string& loads) {
  return "csim: 1\n"
         "signals: {push: {type: constant, value: 2}}\n"
         "bodies:\n"
         "  - {name: base, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: box, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "loads:\n" + loads;
}

TEST_CASE("loads are read with their defaults, frames and signals", "[load_reader]") {
  const LoadedScene scene = LoadSceneFromText(
      Scene("  - {body: box, force: [1, 2, 3]}\n"
            "  - {body: base, point: [0, 0.5, 0], torque: [0, 0, 4], frame: body, signal: push}\n"),
      "test.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.loads.size() == 2);
  const multibody::ExternalLoad& first = model.loads[0];
  CHECK(first.body == model.FindBody("box"));
  CHECK(first.point == Eigen::Vector3d::Zero());
  CHECK(first.force == Eigen::Vector3d(1, 2, 3));
  CHECK(first.torque == Eigen::Vector3d::Zero());
  CHECK_FALSE(first.body_axes);
  CHECK(first.signal == -1);
  const multibody::ExternalLoad& second = model.loads[1];
  CHECK(second.body == model.FindBody("base"));
  CHECK(second.point == Eigen::Vector3d(0, 0.5, 0));
  CHECK(second.force == Eigen::Vector3d::Zero());
  CHECK(second.torque == Eigen::Vector3d(0, 0, 4));
  CHECK(second.body_axes);
  CHECK(second.signal == model.signals.Find("push"));
}

TEST_CASE("loads that break a rule are rejected at the node at fault", "[load_reader]") {
  CheckRejectedAt(Scene("  - {body: crate, force: [1, 0, 0]}\n"), "crate",
                  "unknown body 'crate'");
  CheckRejectedAt(Scene("  - {body: world, force: [1, 0, 0]}\n"), "world",
                  "a load on the world moves nothing");
  CheckRejectedAt(Scene("  - {body: box, point: [0, 0, 1]}\n"), "{body",
                  "a load needs a force, a torque or both");
  CheckRejectedAt(Scene("  - {body: box, force: [1, 0]}\n"), "[1, 0]",
                  "expected 3 numbers, got 2");
  CheckRejectedAt(Scene("  - {body: box, torque: [1, 0, 0], frame: local}\n"), "local",
                  "unknown frame 'local' (expected world or body)");
  CheckRejectedAt(Scene("  - {body: box, force: [1, 0, 0], signal: pull}\n"), "pull",
                  "unknown signal 'pull'");
  CheckRejectedAt(Scene("  - {body: box, force: [1, 0, 0], at: [0, 0, 0]}\n"), "at:",
                  "unknown key 'at'");
  CheckRejectedAt("csim: 1\nbodies: [{name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}]\n"
                  "loads: {body: b}\n",
                  "{body", "expected a list");
}

}  // namespace
}  // namespace csim::io
