// scenes/pendulum.yaml: a 1 kg sphere (r = 5 cm) 1 m below a hinge, released at rest from
// 1 rad. Oracles: the exact period of a physical pendulum at finite amplitude, and the
// energy band of symplectic Euler on a harmonic oscillator (omega dt times the energy).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/pendulum.yaml: swings between +-1 rad with the large-amplitude period, in an "
          "energy band of omega dt that does not drift", "[scenes]") {
  const SceneRun run = RunSceneFile("pendulum.yaml");
  const double m = 1.0, L = 1.0, r = 0.05, g = 9.81, theta0 = 1.0, dt = 1e-3;
  // Moment of inertia about the hinge: the point mass plus the sphere's own 2/5 m r^2.
  const double I_hinge = m * L * L + 0.4 * m * r * r;
  const double omega0 = std::sqrt(m * g * L / I_hinge);
  // Exact period at amplitude theta0: 2 pi / omega0 / AGM(1, cos(theta0 / 2)).
  const double period = 2 * kPi / omega0 / ArithmeticGeometricMean(1.0, std::cos(theta0 / 2));
  const double swing_energy = m * g * L * (1 - std::cos(theta0));

  std::vector<double> t, q, e;
  for (const sim::Row& row : run.rows) {
    t.push_back(row.time);
    q.push_back(row.q[0]);
    e.push_back(TotalEnergy(row));
  }
  // Period: the mean spacing of the zero crossings, twice. Symplectic Euler's frequency
  // error is of order (omega dt)^2.
  const std::vector<double> crossings = ZeroCrossings(t, q);
  REQUIRE(crossings.size() >= 4);
  const double measured = 2 * (crossings.back() - crossings.front()) / (crossings.size() - 1);
  CHECK(measured == Approx(period).epsilon(1e-4));
  // The large amplitude lengthens the small-angle period 2 pi sqrt(L / g).
  CHECK(measured > 1.06 * 2 * kPi * std::sqrt(L / g));

  // Turning points at +-theta0.
  CHECK(*std::max_element(q.begin(), q.end()) == Approx(theta0).margin(1e-3));
  CHECK(*std::min_element(q.begin(), q.end()) == Approx(-theta0).margin(1e-3));

  // Energy: a band no wider than a harmonic oscillator's, omega0 dt times the swing energy
  // (the slower large swing only narrows it), the same in the last period as in the first.
  const size_t per_period = static_cast<size_t>(period / dt);
  REQUIRE(e.size() > 2 * per_period);
  const auto band = [&](size_t from) {
    const auto [lo, hi] = std::minmax_element(e.begin() + from, e.begin() + from + per_period);
    return *hi - *lo;
  };
  const auto mean = [&](size_t from) {
    return std::accumulate(e.begin() + from, e.begin() + from + per_period, 0.0) / per_period;
  };
  const size_t last = e.size() - per_period;
  const double first_band = band(0);
  CHECK(first_band < omega0 * dt * swing_energy);
  CHECK(first_band > 0.5 * omega0 * dt * swing_energy);  // symplectic Euler's O(dt) band
  CHECK(band(last) == Approx(first_band).epsilon(1e-3));
  CHECK(std::abs(mean(last) - mean(0)) < 1e-2 * first_band);

  // The other schemes over one period: midpoint's band is far narrower; explicit Euler
  // gains, implicit Euler loses, more than symplectic Euler's band (each multiplies a
  // harmonic oscillator's energy by (1 + (omega dt)^2)^(+-1) a step).
  const std::string one_period = "settings.duration=" + contact_physics::Num(period);
  for (const std::string integrator : {"midpoint", "explicit_euler", "implicit_euler"}) {
    INFO(integrator);
    const SceneRun other = RunSceneFile("pendulum.yaml", {"settings.integrator=" + integrator, one_period});
    double lo = 1e300, hi = -1e300;
    for (const sim::Row& row : other.rows) lo = std::min(lo, TotalEnergy(row)), hi = std::max(hi, TotalEnergy(row));
    const double change = TotalEnergy(other.rows.back()) - TotalEnergy(other.rows.front());
    if (integrator == "midpoint") CHECK(hi - lo < 1e-2 * first_band);
    if (integrator == "explicit_euler") CHECK(change > first_band);
    if (integrator == "implicit_euler") CHECK(change < -first_band);
  }
}

}  // namespace
}  // namespace csim::scenes
