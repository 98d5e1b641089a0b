// scenes/damped_chain.yaml: five capsule links on viscous revolute joints, released with
// the top joint at 1.2 rad. Joint damping only takes energy out, so the total energy never
// rises, and the chain ends hanging straight down.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/damped_chain.yaml: the energy never rises and the chain settles hanging "
          "straight by t = 10 s", "[scenes]") {
  const SceneRun run = RunSceneFile("damped_chain.yaml");
  REQUIRE(run.rows.back().time == Approx(10.0));
  const double e0 = TotalEnergy(run.rows.front());
  double largest_rise = -1e300;
  for (size_t i = 1; i < run.rows.size(); ++i)
    largest_rise = std::max(largest_rise, TotalEnergy(run.rows[i]) - TotalEnergy(run.rows[i - 1]));
  // Never up, up to round-off of the energy's own size.
  CHECK(largest_rise <= 1e-12 * std::abs(e0));
  // It started swinging: the energy has fallen by more than the chain's kinetic energy at
  // the end (the dissipation is real, not round-off).
  const sim::Row& last = run.rows.back();
  CHECK(e0 - TotalEnergy(last) > 1.0);

  CHECK(last.kinetic_energy < 1e-3);
  for (int j = 0; j < last.q.size(); ++j) {
    INFO("joint " << j);
    CHECK(std::abs(last.q[j]) < 0.02);
  }
}

}  // namespace
}  // namespace csim::scenes
