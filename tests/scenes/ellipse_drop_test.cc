// scenes/ellipse_drop.yaml: the PLA ellipse of the impact lab (tools/impact) dropped on rigid,
// frictionless ground on a planar joint, its long axis level, k = 1e6 N/m, dt = 1e-5 s, the
// dissipation tuned for a rebound ratio of 0.59. Here, for each model the header names
// (sap with tau_d, lagged and similar with Hunt & Crossley's d): the ballistic flight to the
// touch at 20 ms, one short impact with the header's peak force and depth, the rebound
// ratio, and the untouched horizontal and angular velocities. The tuning itself and the
// drops of the synthetic set: tools/impact/tests/test_synthetic.py.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

struct ImpactExpectation {
  std::string model;
  double force_start, force_end;  ///< [s] first and last step with contact force
  double peak_force;              ///< [N]
  double depth;                   ///< [m] deepest penetration of the lowest point
};

TEST_CASE("scenes/ellipse_drop.yaml: flies ballistically, touches at 20 ms, one impact of about "
          "0.6 ms and rebounds at 0.59 with x momentum and spin untouched for sap, lagged and "
          "similar",
          "[scenes]") {
  const double g = 9.81, dt = 1e-5, b = 0.025;  // b: the semi-axis that is vertical
  const double z0 = 0.073838, vz0 = -2.3438, t_touch = 0.02, v_touch = 2.54;
  const auto expectation = GENERATE(ImpactExpectation{"sap", 19.94e-3, 20.55e-3, 381, 0.363e-3},
                                    ImpactExpectation{"lagged", 19.99e-3, 20.61e-3, 451, 0.372e-3},
                                    ImpactExpectation{"similar", 19.99e-3, 20.61e-3, 451, 0.372e-3});
  INFO("contact model " << expectation.model);
  const SceneRun run =
      RunSceneFile("ellipse_drop.yaml", {"settings.contact_model=" + expectation.model});
  const int body = run.Body("ellipse");

  std::vector<double> t, lowest;
  double force_start = -1, force_end = -1, peak = 0, depth = 0;
  int force_runs = 0;
  bool pushing = false;
  for (const sim::Row& row : run.rows) {
    INFO("t = " << row.time);
    const double z = row.q[1], vz = row.v[1];
    t.push_back(row.time);
    lowest.push_back(z - b);
    depth = std::max(depth, b - z);
    // No friction and the contact under the centre of mass: nothing acts along x or turns it.
    CHECK(row.v[0] == 0.5);
    CHECK(row.v[2] == 0.0);
    if (row.time < 19.9e-3) {
      // Symplectic Euler trails the parabola by g t dt / 2; the velocity is exact.
      CHECK(std::abs(z - (z0 + vz0 * row.time - 0.5 * g * row.time * row.time)) <=
            0.5 * g * row.time * dt + 1e-9);
      CHECK(vz == Approx(vz0 - g * row.time).margin(1e-11));
    }
    const double f_n = contact_physics::TotalForceOn(row, body).z();
    if (f_n > 0) {
      if (!pushing) ++force_runs, force_start = force_start < 0 ? row.time : force_start;
      force_end = row.time;
      peak = std::max(peak, f_n);
    }
    pushing = f_n > 0;
  }
  const std::vector<double> crossings = ZeroCrossings(t, lowest);
  REQUIRE(!crossings.empty());
  CHECK(crossings.front() == Approx(t_touch).margin(10e-6));
  CHECK(force_runs == 1);
  CHECK(force_end - force_start > 0.55e-3);
  CHECK(force_end - force_start < 0.70e-3);
  CHECK(force_start == Approx(expectation.force_start).margin(20e-6));
  CHECK(force_end == Approx(expectation.force_end).margin(20e-6));
  CHECK(peak == Approx(expectation.peak_force).epsilon(0.02));
  CHECK(depth == Approx(expectation.depth).epsilon(0.02));

  // The rebound: the last velocity carried back to the touch by gravity, over the touch speed.
  const sim::Row& last = run.rows.back();
  CHECK(last.q[1] > b);  // airborne again at the end
  const double rebound = (last.v[1] + g * (last.time - t_touch)) / v_touch;
  CHECK(rebound == Approx(0.59).margin(5e-4));
}

}  // namespace
}  // namespace csim::scenes
