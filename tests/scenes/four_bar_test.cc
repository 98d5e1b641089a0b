// scenes/four_bar.yaml: a parallelogram four-bar linkage closed by a ball constraint to
// the ground, swinging under gravity with midpoint. Oracles: the loop's closure (the tip of
// the rocker at the ground pivot), the conservation of energy, and the parallelogram's
// kinematics (the coupler translates: shoulder + elbow = 0, and the crank's swing stays
// within its release angle).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/four_bar.yaml: the loop stays closed, the energy is kept and the coupler "
          "translates", "[scenes][constraints]") {
  const SceneRun run = RunSceneFile("four_bar.yaml");
  const auto& model = run.scene.model;
  const int rocker = run.Body("rocker");
  const int shoulder = model.joints[run.Body("crank")].q_start;
  const int elbow = model.joints[run.Body("coupler")].q_start;
  REQUIRE(run.rows.size() == 4001);
  const double m = 1.0, g = 9.81, L = 0.5, theta0 = 0.6;
  const double swing_energy = 2 * m * g * L * (1 - std::cos(theta0));
  const double E0 = TotalEnergy(run.rows.front());
  double gap = 0.0, drift = 0.0, turn = 0.0, crank = 0.0;
  for (const sim::Row& row : run.rows) {
    // The rocker's tip, 0.5 m along its own -z, against the ground pivot (1, 0, 0).
    const Eigen::Vector3d tip =
        row.body_position.col(rocker) + BodyRotation(row, rocker) * Eigen::Vector3d(0, 0, -0.5);
    gap = std::max(gap, (tip - Eigen::Vector3d(1, 0, 0)).norm());
    drift = std::max(drift, std::abs(TotalEnergy(row) - E0));
    turn = std::max(turn, std::abs(row.q[shoulder] + row.q[elbow]));
    crank = std::max(crank, std::abs(row.q[shoulder]));
  }
  INFO("gap " << gap << " m, energy drift " << drift << " J, coupler turn " << turn
              << " rad, crank " << crank << " rad");
  CHECK(gap < 1e-5);
  CHECK(drift < 1e-3 * swing_energy);
  CHECK(turn < 1e-4);
  CHECK(crank <= theta0 + 1e-3);
  CHECK(crank >= theta0 - 1e-3);
  // It swings: the crank passes the bottom.
  double lowest = theta0;
  for (const sim::Row& row : run.rows) lowest = std::min(lowest, row.q[shoulder]);
  CHECK(lowest < -0.5);
}

}  // namespace
}  // namespace csim::scenes
