// The scene's `constraints:` (engine/io/constraint_reader.h): bodies, joints, points and
// poses resolved into the model, and each rule broken located at the node at fault (the
// marker string in each scene names it).

#include "engine/io/constraint_reader.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "engine/io/scene_loader.h"
#include "tests/support/scene_errors.h"

namespace csim::io {
namespace {

using multibody::HolonomicType;
using test::CheckRejectedAt;

std::string Scene(const std::string& constraints) {
  return "csim: 1\n"
         "bodies:\n"
         "  - {name: base, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: box, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: left, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: right, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: rail, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "  - {name: glued, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
         "joints:\n"
         "  - {name: slide_l, type: prismatic, parent: world, child: left, axis: [1, 0, 0]}\n"
         "  - {name: slide_r, type: prismatic, parent: world, child: right, axis: [1, 0, 0]}\n"
         "  - {name: spin, type: revolute, parent: world, child: rail,\n"
         "     prescribed: {type: sine, amplitude: [0.1], frequency: 1}}\n"
         "  - {name: glue, type: fixed, parent: world, child: glued}\n"
         "constraints:\n" + constraints;
}

TEST_CASE("constraints are read with their defaults, names, points and poses", "[constraints]") {
  const LoadedScene scene = LoadSceneFromText(
      Scene("  - {type: coupler, joint: slide_l, follows: slide_r, ratio: -1, offset: 0.02}\n"
            "  - {type: distance, name: rope, body_a: world, point_a: [0, 0, 2], body_b: box,\n"
            "     length: 1.5, stiffness: 1000, damping: 10}\n"
            "  - {type: ball, body_a: base, point_a: [0.1, 0, 0], body_b: box, collide: true}\n"
            "  - {type: weld, body_a: base, pose_a: {position: [0, 0, 1], rpy: [0, 0, 0.5]},\n"
            "     body_b: world}\n"),
      "test.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.constraints.size() == 4);
  const auto& coupler = model.constraints[0];
  CHECK(coupler.type == HolonomicType::kCoupler);
  CHECK(coupler.name == "coupler0");
  CHECK(coupler.joint == model.FindJoint("slide_l"));
  CHECK(coupler.follows == model.FindJoint("slide_r"));
  CHECK(coupler.ratio == -1.0);
  CHECK(coupler.offset == 0.02);
  const auto& rope = model.constraints[1];
  CHECK(rope.name == "rope");
  CHECK(rope.body_a == -1);
  CHECK(rope.body_b == model.FindBody("box"));
  CHECK(rope.X_AP.p == Eigen::Vector3d(0, 0, 2));
  CHECK(rope.X_BQ.p == Eigen::Vector3d::Zero());
  CHECK(rope.length == 1.5);
  CHECK(rope.stiffness == 1000.0);
  CHECK(rope.damping == 10.0);
  const auto& ball = model.constraints[2];
  CHECK(ball.name == "ball2");
  CHECK(ball.collide);
  CHECK(ball.X_AP.p == Eigen::Vector3d(0.1, 0, 0));
  const auto& weld = model.constraints[3];
  CHECK(weld.type == HolonomicType::kWeld);
  CHECK_FALSE(weld.collide);
  CHECK(weld.body_b == -1);
  CHECK(weld.X_AP.p == Eigen::Vector3d(0, 0, 1));
  CHECK(weld.X_AP.R(0, 0) == Approx(std::cos(0.5)));
  CHECK(std::isinf(LoadSceneFromText(Scene("  - {type: distance, body_a: world, body_b: box, "
                                           "length: 1}\n"),
                                     "test.yaml", {})
                       .model.constraints[0]
                       .stiffness));
}

TEST_CASE("constraints that break a rule are rejected at the node at fault", "[constraints]") {
  CheckRejectedAt(Scene("  - {type: hinge, body_a: base, body_b: box}\n"), "hinge",
                  "unknown constraint type 'hinge'");
  CheckRejectedAt(Scene("  - {type: ball, body_a: base, body_b: crate}\n"), "crate",
                  "unknown body 'crate'");
  CheckRejectedAt(Scene("  - {type: ball, body_a: box, body_b: box}\n"), "box}",
                  "a constraint joins two different bodies");
  CheckRejectedAt(Scene("  - {type: weld, body_a: world, body_b: world}\n"), "world}",
                  "a constraint joins two different bodies");
  CheckRejectedAt(Scene("  - {type: ball, body_a: base, body_b: box, length: 1}\n"), "length",
                  "length");
  CheckRejectedAt(Scene("  - {type: coupler, joint: slide_x, follows: slide_r}\n"), "slide_x",
                  "unknown joint 'slide_x'");
  CheckRejectedAt(Scene("  - {type: coupler, joint: slide_l, follows: slide_l}\n"), "slide_l}",
                  "a coupler joins two different joints");
  CheckRejectedAt(Scene("  - {type: coupler, joint: slide_l, follows: base}\n"), "base}",
                  "is free with 6 coordinates");
  CheckRejectedAt(Scene("  - {type: coupler, joint: spin, follows: slide_r}\n"), "spin, follows",
                  "'spin' is prescribed");
  CheckRejectedAt(Scene("  - {type: coupler, joint: glue, follows: slide_r}\n"), "glue, follows",
                  "'glue' is fixed");
  CheckRejectedAt(Scene("  - {type: distance, body_a: base, body_b: box, length: 0}\n"), "0}",
                  "the length must be positive");
  CheckRejectedAt(Scene("  - {type: distance, body_a: base, body_b: box, length: -1}\n"), "-1}",
                  "the length must be positive");
  CheckRejectedAt(
      Scene("  - {type: distance, body_a: base, body_b: box, length: 1, stiffness: -5}\n"), "-5",
      "the stiffness must be positive");
  CheckRejectedAt(
      Scene("  - {type: distance, body_a: base, body_b: box, length: 1, damping: -2}\n"), "-2",
      "the damping must not be negative");
  CheckRejectedAt(Scene("  - {type: ball, name: pin, body_a: base, body_b: box}\n"
                        "  - {type: ball, name: pin, body_a: left, body_b: box}\n"),
                  "pin, body_a: left", "duplicate constraint name 'pin'");
  CheckRejectedAt(Scene("  - {type: weld, body_a: base, body_b: box, pose_a: {spin: 1}}\n"),
                  "spin: 1", "spin");
}

}  // namespace
}  // namespace csim::io
