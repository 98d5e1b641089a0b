// scenes/soft_sphere_drop.yaml: a compliant ball dropped on a rigid floor with no contact
// dissipation. Oracles: the continuum contact of its pressure field, F(d) = pi E d^2 (1 -
// 2 d / (3 R)) (docs/design/hydroelastic.md §5), integrated from the landing speed, gives
// the contact time and the largest compression; and the scheme's own damping. SAP solves
// the contact force at the step's end, with the gap predicted as phi0 - dt theta_q v_n: the
// spring F(d) + k(d) dt theta_q v_n acts as a dashpot of constant theta_q dt k(d), which over
// one bounce takes theta_q dt * integral of k(d) v^2 dt from an otherwise elastic contact.

#include <catch2/catch.hpp>

#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

constexpr double kE = 1e5, kRadius = 0.05, kMass = 0.5, kG = 9.81, kDrop = 0.2;

// The continuum bounce: m d'' = m g - F(d) from d = 0, d' = sqrt(2 g drop), by RK4 until the
// ball leaves the floor. Returns the contact time, the largest compression and the integral
// of k(d) v^2 over the contact, k = dF/dd.
struct ContinuumBounce {
  double contact_time = 0.0, max_depth = 0.0, stiffness_work = 0.0;
};
ContinuumBounce IntegrateContinuumBounce() {
  const auto force = [](double d) { return kPi * kE * d * d * (1 - 2 * d / (3 * kRadius)); };
  const auto stiffness = [](double d) { return kPi * kE * (2 * d - 2 * d * d / kRadius); };
  const auto rate = [&](const Eigen::Vector2d& s) {
    return Eigen::Vector2d(s(1), kG - force(s(0)) / kMass);
  };
  const double h = 1e-6;
  Eigen::Vector2d s(0.0, std::sqrt(2 * kG * kDrop));
  ContinuumBounce out;
  while (true) {
    const Eigen::Vector2d k1 = rate(s), k2 = rate(s + h / 2 * k1), k3 = rate(s + h / 2 * k2),
                          k4 = rate(s + h * k3);
    const Eigen::Vector2d next = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    out.stiffness_work += h / 2 * (stiffness(s(0)) * s(1) * s(1) +
                                   stiffness(std::max(next(0), 0.0)) * next(1) * next(1));
    if (next(0) < 0) {
      out.contact_time += h * s(0) / (s(0) - next(0));
      return out;
    }
    s = next;
    out.contact_time += h;
    out.max_depth = std::max(out.max_depth, s(0));
  }
}

// The rows of the bounce: the last before the ball touches and the first after it leaves.
struct Bounce {
  size_t before = 0, after = 0;
  double contact_time = 0.0, max_depth = 0.0, energy_lost = 0.0;
};
Bounce FindBounce(const SceneRun& run) {
  const int ball = run.Body("ball");
  Bounce b;
  size_t first = 0, last = 0;
  for (size_t i = 0; i < run.rows.size(); ++i) {
    const double depth = kRadius - run.rows[i].body_position(2, ball);
    if (depth <= 0) continue;
    if (first == 0) first = i;
    last = i;
    b.max_depth = std::max(b.max_depth, depth);
  }
  REQUIRE(first > 0);
  REQUIRE(last + 1 < run.rows.size());
  b.before = first - 1;
  b.after = last + 1;
  // The contact starts and ends between rows: interpolate the ball's height across each.
  const auto crossing = [&](size_t i) {
    const double z0 = run.rows[i].body_position(2, ball) - kRadius;
    const double z1 = run.rows[i + 1].body_position(2, ball) - kRadius;
    return run.rows[i].time + (run.rows[i + 1].time - run.rows[i].time) * z0 / (z0 - z1);
  };
  b.contact_time = crossing(last) - crossing(b.before);
  b.energy_lost = TotalEnergy(run.rows[b.before]) - TotalEnergy(run.rows[b.after]);
  return b;
}

TEST_CASE("scenes/soft_sphere_drop.yaml: the bounce follows the continuum contact and loses "
          "only the time step's dashpot, first order in dt and halved by the midpoint rule",
          "[scenes]") {
  const ContinuumBounce continuum = IntegrateContinuumBounce();
  REQUIRE(continuum.contact_time == Approx(0.03395).epsilon(1e-3));  // the header's figures
  REQUIRE(continuum.max_depth == Approx(0.0240).epsilon(2e-3));

  const SceneRun run = RunSceneFile("soft_sphere_drop.yaml");
  const double dt = 1e-4;
  const Bounce bounce = FindBounce(run);
  CHECK(bounce.contact_time == Approx(continuum.contact_time).epsilon(0.02));
  CHECK(bounce.max_depth == Approx(continuum.max_depth).epsilon(0.02));
  // Symplectic Euler moves the ball with the step's end velocity: theta_q = 1.
  CHECK(bounce.energy_lost == Approx(dt * continuum.stiffness_work).epsilon(0.08));
  CHECK(bounce.energy_lost < 0.035 * TotalEnergy(run.rows.front()));
  // No energy from nowhere: kinetic + gravity never rises above the drop's (the elastic
  // energy stored in the contact is not in it, and only that could come back).
  for (const sim::Row& row : run.rows) CHECK(TotalEnergy(row) <= TotalEnergy(run.rows.front()) + 1e-12);
  // It comes back up to within the loss: apex = drop height - loss / (m g).
  double apex = 0.0;
  for (size_t i = bounce.after; i < run.rows.size(); ++i)
    apex = std::max(apex, run.rows[i].body_position(2, run.Body("ball")));
  CHECK(apex > 0.25 - 1.1 * bounce.energy_lost / (kMass * kG));

  // First order in dt: twice the step, twice the loss.
  const Bounce coarse = FindBounce(RunSceneFile("soft_sphere_drop.yaml", {"settings.time_step=2e-4"}));
  CHECK(coarse.energy_lost / bounce.energy_lost == Approx(2.0).epsilon(0.05));
  // The midpoint rule moves the ball with the mean of the step's velocities, theta_q = 1/2:
  // half the dashpot. Its free flight keeps the energy exactly, so its loss is the contact's.
  const Bounce midpoint =
      FindBounce(RunSceneFile("soft_sphere_drop.yaml", {"settings.integrator=midpoint"}));
  CHECK(midpoint.energy_lost == Approx(0.5 * dt * continuum.stiffness_work).epsilon(0.04));
  CHECK(midpoint.energy_lost / bounce.energy_lost == Approx(0.5).epsilon(0.06));
}

}  // namespace
}  // namespace csim::scenes
