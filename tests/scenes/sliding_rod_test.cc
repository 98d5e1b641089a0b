// scenes/sliding_rod.yaml: a 0.3 kg rod, 0.5 m long, standing on one end at 30 degrees and
// sliding towards it at U0 = 10 m/s on ground of k = 1e7 N/m, mu = 2.3, no dissipation,
// Lagged model, dt = 1e-6 s. Here: the contact slides at Coulomb's limit while friction
// turns the rod into the ground, jams (sticks inside the cone) for about 0.2 ms near the
// time of a run at dt = 1e-8 s, and the rod leaves the ground in free flight; kinetic,
// potential and elastic contact energy never rise. The three models against each other and
// their convergence: tools/sliding_rod_study.py (results/sliding_rod.md).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/sliding_rod.yaml: slides at mu N until the contact jams near 14.1 ms and "
          "sticks 0.2 ms then the rod jumps into free flight and energy never rises",
          "[scenes]") {
  const SceneRun run = RunSceneFile("sliding_rod.yaml");
  const double mu = 2.3, k = 1e7, g = 9.81, v_s = 1e-4, U0 = 10.0, m = 0.3;
  const int b = run.Body("rod");
  // The jam of a Lagged run at dt = 1e-8 s (results/sliding_rod.md); at the scene's 1e-6 s
  // the first-order error moves it by 0.17 ms.
  const double t_jam_reference = 14.11e-3;

  // Events: the first push, the jam (a loaded contact slipping below v_s) and the lift-off
  // (the first row after the jam without contact force).
  double t_push = -1, t_jam = -1, t_lift = -1, peak = 0, t_peak = -1;
  for (const sim::Row& row : run.rows) {
    const double f_n = contact_physics::TotalForceOn(row, b).z();
    if (f_n > peak) peak = f_n, t_peak = row.time;
    if (f_n > 0 && t_push < 0) t_push = row.time;
    if (f_n > 0 && t_jam < 0 && row.contacts.size() == 1 && row.contacts[0].slip_speed < v_s)
      t_jam = row.time;
    if (t_jam > 0 && t_lift < 0 && f_n == 0) t_lift = row.time;
  }
  INFO("push " << t_push << " jam " << t_jam << " lift-off " << t_lift << " peak " << peak
               << " N at " << t_peak);
  REQUIRE(t_push > 0);
  REQUIRE(t_jam > 0);
  REQUIRE(t_lift > 0);
  CHECK(t_push < 1e-4);  // it starts touching
  CHECK(t_jam == Approx(t_jam_reference).margin(0.3e-3));
  // The paper: the contact stays stuck "for a finite period of time of about 0.2 ms".
  CHECK(t_lift - t_jam > 0.1e-3);
  CHECK(t_lift - t_jam < 0.4e-3);
  // The impact: the normal force peaks in the jam, at hundreds of times the rod's weight.
  CHECK(t_peak >= t_jam);
  CHECK(t_peak < t_lift);
  CHECK(peak > 200 * m * g);

  double energy_max = 0.0, energy_rise = 0.0;
  for (const sim::Row& row : run.rows) {
    INFO("t = " << row.time);
    const Eigen::Vector3d f = contact_physics::TotalForceOn(row, b);
    // Kinetic + potential + the contact spring's k x^2 / 2 = F^2 / (2 k): friction only
    // takes energy out.
    const double energy = TotalEnergy(row) + f.z() * f.z() / (2 * k);
    if (row.time > 0) energy_rise = std::max(energy_rise, energy - energy_max);
    energy_max = std::max(energy_max, energy);
    // Sliding from the first push until the slip runs out within the last 50 us before the
    // jam, the friction at Coulomb's limit (Lagged's normal impulse lags a step: within
    // 2 %) and against the slide (-x).
    if (row.time < t_push || row.time >= t_jam - 50e-6) continue;
    REQUIRE(row.contacts.size() == 1);
    CHECK(row.contacts[0].slip_speed > 0.1);
    if (f.z() > 1.0) {
      CHECK(-f.x() == Approx(mu * f.z()).epsilon(0.02));
    }
  }
  CHECK(energy_rise < 1e-6);
  CHECK(run.rows.front().kinetic_energy == Approx(0.5 * m * U0 * U0));

  // Stuck from the jam to the lift-off, the friction inside the cone.
  for (const sim::Row& row : run.rows) {
    if (row.time < t_jam || row.time >= t_lift) continue;
    INFO("t = " << row.time);
    REQUIRE(row.contacts.size() == 1);
    const Eigen::Vector3d f = contact_physics::TotalForceOn(row, b);
    CHECK(row.contacts[0].slip_speed < v_s);
    CHECK(std::abs(f.x()) <= mu * f.z());
  }

  // Free flight after the lift-off: no contact force, constant v_x and spin, v_z falling at g.
  std::vector<const sim::Row*> flight;
  for (const sim::Row& row : run.rows)
    if (row.time > t_lift) flight.push_back(&row);
  REQUIRE(flight.size() > 100);
  const sim::Row& first = *flight.front();
  for (const sim::Row* row : flight) {
    INFO("t = " << row->time);
    CHECK(contact_physics::TotalForceOn(*row, b).norm() == 0.0);
    CHECK(row->body_angular_velocity(1, b) == Approx(first.body_angular_velocity(1, b)).epsilon(1e-12));
    CHECK(row->body_linear_velocity(0, b) == Approx(first.body_linear_velocity(0, b)).epsilon(1e-12));
    CHECK(row->body_linear_velocity(2, b) ==
          Approx(first.body_linear_velocity(2, b) - g * (row->time - first.time)).margin(1e-9));
  }
  // It jumps: the centre rises at metres per second and the rod turns up at ~14 rad/s.
  CHECK(first.body_linear_velocity(2, b) > 3.0);
  CHECK(first.body_angular_velocity(1, b) > 10.0);
}

}  // namespace
}  // namespace csim::scenes
