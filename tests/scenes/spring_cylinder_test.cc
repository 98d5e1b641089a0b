// scenes/spring_cylinder.yaml and spring_cylinder_frictionless.yaml: a cylinder (R = 5 cm,
// m = 0.5 kg) lying on the ground on a planar joint, pulled back to x = 0 by a 100 N/m
// spring from x0 = 0.1 m (the SAP paper's sec. VI-B). Oracles: a harmonic oscillator of
// mass 1.5 m when it rolls (m + I / R^2) and m when it slides, and the implicit midpoint
// rule's exact discrete frequency for a linear oscillator, tan(omega_h dt / 2) =
// omega dt / 2, so its period is pi dt / atan(omega dt / 2).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

constexpr double kR = 0.05, kM = 0.5, kKs = 100.0, kX0 = 0.1, kDt = 0.02;

struct Oscillation {
  double period = 0.0;        // measured from the zero crossings of x [s]
  double energy_band = 0.0;   // (max - min) / first of the total energy
  double x_error = 0.0;       // largest |x - x0 cos(omega_h t)| [m]
  double largest_slip = 0.0;  // over every contact of every row [m/s]
  double largest_angle = 0.0; // |planar angle| [rad]
  double rolling_error = 0.0; // largest |angle + (x - x0) / R| [rad]
};

Oscillation Measure(const SceneRun& run, double omega) {
  const double omega_h = 2 * std::atan(omega * kDt / 2) / kDt;  // midpoint's frequency
  Oscillation out;
  std::vector<double> t, x;
  double e_min = 1e300, e_max = -1e300;
  for (const sim::Row& row : run.rows) {
    t.push_back(row.time);
    x.push_back(row.q[0]);
    e_min = std::min(e_min, TotalEnergy(row));
    e_max = std::max(e_max, TotalEnergy(row));
    out.x_error = std::max(out.x_error, std::abs(row.q[0] - kX0 * std::cos(omega_h * row.time)));
    for (const sim::ContactRow& c : row.contacts) out.largest_slip = std::max(out.largest_slip, c.slip_speed);
    out.largest_angle = std::max(out.largest_angle, std::abs(row.q[2]));
    out.rolling_error = std::max(out.rolling_error, std::abs(row.q[2] + (row.q[0] - kX0) / kR));
  }
  const std::vector<double> crossings = ZeroCrossings(t, x);
  REQUIRE(crossings.size() >= 4);
  out.period = 2 * (crossings.back() - crossings.front()) / (crossings.size() - 1);
  out.energy_band = (e_max - e_min) / TotalEnergy(run.rows.front());
  return out;
}

TEST_CASE("scenes/spring_cylinder.yaml: it rolls without slipping at the period of a mass 1.5 m, "
          "midpoint keeps the energy within 0.2 %", "[scenes]") {
  const SceneRun run = RunSceneFile("spring_cylinder.yaml");
  // The recorded energy is the spring's alone: the cylinder starts settled at z = 0.
  CHECK(TotalEnergy(run.rows.front()) == Approx(0.5 * kKs * kX0 * kX0).epsilon(1e-9));
  const double omega = std::sqrt(kKs / (1.5 * kM));
  const Oscillation o = Measure(run, omega);
  CHECK(2 * kPi / omega == Approx(0.544).margin(5e-4));
  CHECK(o.period == Approx(kPi * kDt / std::atan(omega * kDt / 2)).epsilon(3e-3));
  CHECK(o.energy_band < 2e-3);
  CHECK(o.largest_slip < 1e-4);
  // Rolling: the angle follows -(x - x0) / R; the contact point sits inside the compliant
  // overlap, a fraction of a millimetre nearer the axis than R, which allows 1 %.
  CHECK(o.rolling_error < 0.01 * 2 * kX0 / kR);
  CHECK(o.largest_angle > 0.9 * 2 * kX0 / kR);  // it does turn: 2 x0 / R at the far side
  CHECK(o.x_error < 0.05 * kX0);
}

TEST_CASE("scenes/spring_cylinder_frictionless.yaml: it slides without turning at the period of "
          "a mass m, midpoint keeps the energy to round-off", "[scenes]") {
  const SceneRun run = RunSceneFile("spring_cylinder_frictionless.yaml");
  CHECK(TotalEnergy(run.rows.front()) == Approx(0.5 * kKs * kX0 * kX0).epsilon(1e-9));
  const double omega = std::sqrt(kKs / kM);
  const Oscillation o = Measure(run, omega);
  CHECK(2 * kPi / omega == Approx(0.444).margin(5e-4));
  CHECK(o.period == Approx(kPi * kDt / std::atan(omega * kDt / 2)).epsilon(1e-3));
  CHECK(o.energy_band < 1e-12);
  CHECK(o.largest_angle == 0.0);
  CHECK(o.x_error < 0.05 * kX0);
}

// Under the other schemes the cylinder's energy follows the laws of a spring alone at the
// same omega: implicit Euler multiplies it by 1 / (1 + (omega dt)^2) a step, symplectic
// Euler keeps it in a band of omega dt (peak to peak, over its mean), with no drift.
void CheckOtherIntegrators(const std::string& scene, double omega, double implicit_tolerance) {
  const double decay = 1 + (omega * kDt) * (omega * kDt);
  const SceneRun implicit = RunSceneFile(scene, {"settings.integrator=implicit_euler"});
  const double steps = static_cast<double>(implicit.rows.size() - 1);
  CHECK(TotalEnergy(implicit.rows.back()) / TotalEnergy(implicit.rows.front()) ==
        Approx(std::pow(decay, -steps)).epsilon(implicit_tolerance));

  const SceneRun symplectic = RunSceneFile(scene, {"settings.integrator=symplectic_euler"});
  const auto band = [&](double from, double to) {
    double lo = 1e300, hi = -1e300;
    for (const sim::Row& row : symplectic.rows) {
      if (row.time < from || row.time > to) continue;
      lo = std::min(lo, TotalEnergy(row));
      hi = std::max(hi, TotalEnergy(row));
    }
    return (hi - lo) / TotalEnergy(symplectic.rows.front());
  };
  CHECK(band(0.0, 1.0) == Approx(omega * kDt).epsilon(0.05));
  CHECK(band(4.0, 5.0) == Approx(band(0.0, 1.0)).epsilon(0.02));
}

TEST_CASE("scenes/spring_cylinder.yaml: implicit Euler takes 1 + (omega dt)^2 off the energy a "
          "step, symplectic Euler keeps a band of omega dt", "[scenes]") {
  CheckOtherIntegrators("spring_cylinder.yaml", std::sqrt(kKs / (1.5 * kM)), 0.05);
}

TEST_CASE("scenes/spring_cylinder_frictionless.yaml: implicit Euler takes 1 + (omega dt)^2 off "
          "the energy a step, symplectic Euler keeps a band of omega dt", "[scenes]") {
  CheckOtherIntegrators("spring_cylinder_frictionless.yaml", std::sqrt(kKs / kM), 1e-3);
}

}  // namespace
}  // namespace csim::scenes
