// scenes/spring_mass.yaml: a 1 kg block on a 100 N/m joint spring, released from 0.1 m,
// no gravity. The harmonic oscillator's exact solution and each integrator's exact
// discrete energy law (for this linear system) are the oracles.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

constexpr double kM = 1.0, kK = 100.0, kX0 = 0.1, kDt = 1e-3;
const double kOmega = std::sqrt(kK / kM);
const double kE0 = 0.5 * kK * kX0 * kX0;

TEST_CASE("scenes/spring_mass.yaml: x = x0 cos(omega t), symplectic Euler keeps its modified "
          "energy and an energy band of omega dt E0", "[scenes]") {
  const SceneRun run = RunSceneFile("spring_mass.yaml");
  REQUIRE(run.rows.back().time == Approx(3.0));
  double e_min = 1e300, e_max = -1e300, modified_error = 0.0, x_error = 0.0;
  for (const sim::Row& row : run.rows) {
    const double x = row.q[0], v = row.v[0];
    // The energy the recorder reports is the oscillator's own.
    CHECK(TotalEnergy(row) == Approx(0.5 * kM * v * v + 0.5 * kK * x * x).margin(1e-14));
    e_min = std::min(e_min, TotalEnergy(row));
    e_max = std::max(e_max, TotalEnergy(row));
    // v' = v - dt (k/m) x, x' = x + dt v' conserves E - dt k x v / 2 exactly.
    const double modified = TotalEnergy(row) - 0.5 * kDt * kK * x * v;
    modified_error = std::max(modified_error, std::abs(modified - kE0));
    x_error = std::max(x_error, std::abs(x - kX0 * std::cos(kOmega * row.time)));
  }
  CHECK(run.rows.front().q[0] == kX0);
  CHECK(TotalEnergy(run.rows.front()) == Approx(kE0).epsilon(1e-15));
  CHECK(modified_error < 1e-13);
  // E = modified + dt k x v / 2, and on the ellipse modified = E0 the product x v reaches
  // E0 / (omega (1 - omega dt / 2)) and -E0 / (omega (1 + omega dt / 2)): a band of
  // omega dt E0 / (1 - (omega dt / 2)^2) peak to peak.
  const double h = 0.5 * kOmega * kDt;
  CHECK(e_max - kE0 == Approx(kE0 * h / (1 - h)).epsilon(1e-3));
  CHECK(kE0 - e_min == Approx(kE0 * h / (1 + h)).epsilon(1e-3));
  // The discrete solution follows the exact one to O(omega dt) in amplitude and phase.
  CHECK(x_error < kX0 * kOmega * kDt);
  // Peak speed omega x0.
  double v_max = 0.0;
  for (const sim::Row& row : run.rows) v_max = std::max(v_max, std::abs(row.v[0]));
  CHECK(v_max == Approx(kOmega * kX0).epsilon(kOmega * kDt));
}

TEST_CASE("scenes/spring_mass.yaml: midpoint keeps the energy exactly, explicit Euler multiplies "
          "it by 1 + (omega dt)^2 a step, implicit Euler divides it by that", "[scenes]") {
  const double growth = 1 + (kOmega * kDt) * (kOmega * kDt);
  for (const std::string integrator : {"midpoint", "explicit_euler", "implicit_euler"}) {
    INFO(integrator);
    // Half a second (500 steps) shows a per-step law as well as the whole run would.
    const SceneRun run =
        RunSceneFile("spring_mass.yaml", {"settings.integrator=" + integrator, "settings.duration=0.5"});
    REQUIRE(run.rows.size() == 501);
    double worst = 0.0;
    for (size_t i = 1; i < run.rows.size(); ++i) {
      const double ratio = TotalEnergy(run.rows[i]) / TotalEnergy(run.rows[i - 1]);
      const double expected =
          integrator == "midpoint" ? 1.0 : integrator == "explicit_euler" ? growth : 1.0 / growth;
      worst = std::max(worst, std::abs(ratio - expected));
    }
    CHECK(worst < 1e-12);
  }
}

}  // namespace
}  // namespace csim::scenes
