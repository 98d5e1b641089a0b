// scenes/rope_100.yaml: 100 ball-jointed capsule links (0.1 kg, 0.1 m) hanging from the
// world 10.5 m up, released tilted and bent so that the rope swings, twists and whips its
// free end; no ground, no damping. The scene asks for midpoint because schemes that take
// the velocity-dependent forces at the start of the step feed energy into the whip
// (docs/scene-format.md, "Choosing an integrator"). Oracle: conservation of energy.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"
#include "tests/support/build_variant.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/rope_100.yaml: swings and whips with its energy kept by midpoint", "[scenes]") {
  // The sanitized program leaves this 40 s run (under the sanitizers) to the plain one: the
  // ball-jointed chains of tests/integrator and tests/multibody run the same code.
  if (csim::testing::UnderAddressSanitizer()) return;
  const SceneRun run = RunSceneFile("rope_100.yaml");
  REQUIRE(run.rows.back().time == Approx(1.0));
  const double e0 = TotalEnergy(run.rows.front());
  // At rest: all gravity. Each joint turns its link relative to the previous one by its
  // initial quaternion; a link's joint sits 0.1 m below the previous joint along the
  // previous link, its centre of mass 0.05 m below its own joint; joint 0 is 10.5 m up.
  const multibody::Model& model = run.scene.model;
  REQUIRE(model.num_bodies() == 100);
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d joint(0, 0, 10.5);
  double potential = 0.0;
  for (int i = 0; i < model.num_bodies(); ++i) {
    if (i > 0) joint += R * Eigen::Vector3d(0, 0, -0.1);
    R = R * math::RotationFromQuaternion(run.rows.front().q.segment<4>(model.joints[i].q_start));
    potential += 0.1 * 9.81 * (joint + R * Eigen::Vector3d(0, 0, -0.05)).z();
  }
  CHECK(run.rows.front().kinetic_energy == 0.0);
  CHECK(e0 == Approx(potential).epsilon(1e-12));
  double worst = 0.0;
  for (const sim::Row& row : run.rows) worst = std::max(worst, std::abs(TotalEnergy(row) - e0));
  // Midpoint is not exactly conservative on this nonlinear chain; what the whip costs it
  // stays within 0.2 % of the energy.
  CHECK(worst < 2e-3 * e0);
  // It swings: a good part of the energy is motion by the end.
  CHECK(run.rows.back().kinetic_energy > 0.1 * e0);
}

}  // namespace
}  // namespace csim::scenes
