// scenes/conveyor_belt.yaml: a 1 kg box on a vertical prismatic joint resting on a belt
// whose speed is u(t) = -0.1 cos(pi t / 2) m/s, mu = 0.5, near-rigid SAP contact, dt =
// 0.01 s. Oracles: the box's vertical momentum balance, Coulomb's law for a contact that
// slides all the time, and SAP's gliding gap phi = dt mu |v_t| (early SAP notes sec. 6.1).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/conveyor_belt.yaml: friction mu N along the belt, flipping at t = 1 s, normal "
          "force m g but at the turn, height dt mu |u|", "[scenes]") {
  const SceneRun run = RunSceneFile("conveyor_belt.yaml");
  const double m = 1.0, g = 9.81, mu = 0.5, dt = 0.01, u0 = 0.1;
  const int box = run.Body("box");
  // The belt's speed; the contact problem of a step sees it at the step's start.
  const auto u = [&](double t) { return -u0 * std::cos(kPi * t / 2); };
  // At the turn (t = 1 s) the box's sinking, d/dt (dt mu |u|) = -dt mu |u'|, becomes a
  // rise at the same rate: the normal force takes the impulse 2 m dt mu |u'| in one step.
  const double turn_force = 2 * m * mu * u0 * kPi / 2;

  for (size_t i = 1; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    const double t_start = run.rows[i - 1].time;
    INFO("t = " << row.time);
    const Eigen::Vector3d f = contact_physics::TotalForceOn(row, box);
    // The box moves only vertically; gravity and the belt push it.
    CHECK(f.z() - m * g == Approx(m * (row.v[0] - run.rows[i - 1].v[0]) / dt).margin(1e-9));
    // The belt slides under the box: kinetic friction mu N along u (where |u| is well
    // above the stiction tolerance 1e-4 m/s of the regularised friction).
    if (std::abs(u(t_start)) > 0.01) {
      CHECK(std::abs(f.x()) == Approx(mu * f.z()).epsilon(1e-3));
      CHECK((f.x() > 0) == (u(t_start) > 0));
    }
    // Height: the gliding gap of the step's belt speed, up to the regularisation's
    // compliance.
    CHECK(row.q[0] == Approx(dt * mu * std::abs(u(t_start))).margin(5e-6));
    // Normal force: m g after the first two steps, but for the step that sees the turn.
    if (i < 3) continue;
    const bool turning = t_start > 1.0 - 1e-9 && t_start < 1.0 + dt + 1e-9;
    if (turning) CHECK(std::abs(f.z() - m * g) < turn_force + 2e-3);
    else CHECK(std::abs(f.z() - m * g) < 2e-3);
  }
  // Friction flips sign when the belt turns.
  CHECK(contact_physics::TotalForceOn(run.rows[50], box).x() < 0);
  CHECK(contact_physics::TotalForceOn(run.rows[150], box).x() > 0);
  CHECK(turn_force == Approx(0.157).margin(0.001));
}

}  // namespace
}  // namespace csim::scenes
