// scenes/oscillating_belt.yaml: a 1 kg box (on a 10 g carriage) riding a belt that
// oscillates at 1 Hz with amplitude 0.2 m, mu = 0.7, Lagged model. The belt's peak
// acceleration exceeds what friction can give the box, so the contact sticks and slips in
// turn. Here: Coulomb's law in both phases and the box's momentum balance. The models'
// vertical behaviour (Lagged never lifts, SAP and Similar glide) is checked in
// tests/contact_physics/hunt_crossley_test.cc.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/oscillating_belt.yaml: sticks and slips in every half period, slides at "
          "mu m g, sticks below it", "[scenes]") {
  const SceneRun run = RunSceneFile("oscillating_belt.yaml");
  const double m = 1.0, m_carriage = 0.01, mu = 0.7, g = 9.81, dt = 0.01, v_s = 1e-4;
  const double amplitude = 0.2, omega = 2 * kPi;
  const int box = run.Body("box");
  const double friction_limit = mu * m * g;
  // The belt outruns friction once its acceleration A omega^2 |sin(omega t)| exceeds the
  // acceleration friction gives box and carriage, mu m g / (m + m_c).
  const double a_max = friction_limit / (m + m_carriage);
  REQUIRE(amplitude * omega * omega > a_max);
  const double t_outrun = std::asin(a_max / (amplitude * omega * omega)) / omega;

  int stuck[4] = {0, 0, 0, 0}, slipping[4] = {0, 0, 0, 0};
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    INFO("t = " << row.time);
    REQUIRE(row.contacts.size() == 4);
    double slip = 0.0;
    for (const sim::ContactRow& c : row.contacts) slip += c.slip_speed / 4;
    const double f_x = contact_physics::TotalForceOn(row, box).x();
    // Box and carriage move together along x, pushed by friction alone.
    const double a = (row.v[0] - run.rows[i - 1].v[0]) / dt;
    CHECK((m + m_carriage) * a == Approx(f_x).margin(1e-9 * friction_limit));
    const int half = std::min(3, static_cast<int>(row.time / 0.5));
    if (slip > 100 * v_s) {
      ++slipping[half];
      CHECK(std::abs(f_x) == Approx(friction_limit).epsilon(1e-3));  // kinetic friction
      CHECK(row.time > t_outrun);  // not before the belt outruns friction
    } else if (slip < v_s) {
      ++stuck[half];
      CHECK(std::abs(f_x) <= friction_limit * (1 + 1e-6));  // inside the cone
    }
  }
  for (int half = 0; half < 4; ++half) {
    INFO("half period " << half);
    CHECK(stuck[half] > 5);
    CHECK(slipping[half] > 5);
  }
}

}  // namespace
}  // namespace csim::scenes
