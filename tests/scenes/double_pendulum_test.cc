// scenes/double_pendulum.yaml: two 1 kg bobs on massless 1 m rods, hinge 2.5 m up, both
// joints released at rest from 2 rad. Chaotic, so the oracle is the energy: its initial
// value from the geometry, and its conservation under the implicit midpoint rule.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/double_pendulum.yaml: midpoint keeps the energy of 63.63 J, and the lower bob "
          "whirls over the top", "[scenes]") {
  const SceneRun run = RunSceneFile("double_pendulum.yaml");
  const double g = 9.81, hinge = 2.5, q1 = 2.0, q2 = 2.0;
  // At rest: all potential. The upper bob hangs at angle q1 from straight down, the lower
  // one at q1 + q2 (rotations about y: z = -cos(angle) below the pivot).
  const double z_upper = hinge - std::cos(q1), z_lower = z_upper - std::cos(q1 + q2);
  const double e0 = 1.0 * g * z_upper + 1.0 * g * z_lower;
  REQUIRE(e0 == Approx(63.63).margin(0.005));
  CHECK(TotalEnergy(run.rows.front()) == Approx(e0).epsilon(1e-12));

  double worst = 0.0, lower_travel = 0.0;
  for (const sim::Row& row : run.rows) {
    worst = std::max(worst, std::abs(TotalEnergy(row) - e0));
    lower_travel = std::max(lower_travel, std::abs(row.q[1] - q2));
  }
  CHECK(worst < 5e-5 * e0);
  // Over the top and round at least twice: the elbow angle winds up by more than 4 pi.
  CHECK(lower_travel > 4 * kPi);
}

}  // namespace
}  // namespace csim::scenes
