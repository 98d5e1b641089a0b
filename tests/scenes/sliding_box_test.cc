// scenes/sliding_box.yaml: a free 1 kg box (10 cm edge) launched at v0 = 1 m/s along the
// ground, mu = 0.5, near-rigid SAP contact, dt = 0.01 s, starting at the gliding gap
// dt mu v0. Oracles: the box's momentum balance, Coulomb friction (constant deceleration
// mu g), SAP's gliding gap dt mu |v_t| (early SAP notes sec. 6.1.1: while sliding the box
// sinks at d/dt (dt mu |v_t|) = -dt mu^2 g), and at rest the near-rigid compliance of
// SAP eq. 29: a corner carrying F overlaps by F dt^2 beta^2 w / (4 pi^2), with w the
// Delassus estimate of that corner.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/scenes/scene_run.h"

namespace csim::scenes {
namespace {

TEST_CASE("scenes/sliding_box.yaml: decelerates at mu g, sinks at dt mu^2 g, stops after "
          "v0^2 / (2 mu g) and rests on the near-rigid compliance", "[scenes]") {
  const SceneRun run = RunSceneFile("sliding_box.yaml");
  const double m = 1.0, g = 9.81, mu = 0.5, dt = 0.01, v0 = 1.0, half = 0.05;
  const int box = run.Body("box");
  const double sink_speed = dt * mu * mu * g;

  double t_stop = -1.0, stop_impulse = 0.0, peak = 0.0;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    const sim::Row& before = run.rows[i - 1];
    INFO("t = " << row.time);
    const Eigen::Vector3d f = contact_physics::TotalForceOn(row, box);
    const Eigen::Vector3d v = row.body_linear_velocity.col(box);
    // Momentum: contact force plus weight, nothing else.
    const Eigen::Vector3d dv = v - before.body_linear_velocity.col(box);
    CHECK((f - Eigen::Vector3d(0, 0, m * g) - m * dv / dt).norm() < 1e-9);
    const bool sliding = v.x() > 0.05;  // far above the stiction tolerance 1e-4 m/s
    if (sliding) CHECK(f.x() == Approx(-mu * f.z()).epsilon(1e-3));
    if (sliding && i > 3) {  // after the first steps' transient into the glide
      CHECK(f.z() == Approx(m * g).margin(0.02));
      CHECK(dv.x() / dt == Approx(-mu * g).epsilon(3e-3));
    }
    if (sliding && i > 4) CHECK(v.z() == Approx(-sink_speed).margin(1e-4));
    if (t_stop < 0 && v.x() < 1e-3) t_stop = row.time;
    // Stiction arrests the sinking: the normal force's excess is the sink's momentum.
    if (t_stop > 0) {
      stop_impulse += (f.z() - m * g) * dt;
      peak = std::max(peak, f.z() - m * g);
    }
  }
  REQUIRE(t_stop > 0);
  CHECK(t_stop == Approx(v0 / (mu * g)).margin(2 * dt));
  const double distance = run.rows.back().body_position(0, box);
  CHECK(distance == Approx(v0 * v0 / (2 * mu * g)).margin(v0 * dt));
  CHECK(stop_impulse == Approx(m * sink_speed).epsilon(0.05));
  CHECK(peak > 0.0);
  CHECK(peak < m * sink_speed / dt);  // spread over more than one step

  // At rest (the last 0.2 s): still, each corner overlapping by its share of the weight
  // over the near-rigid stiffness 4 pi^2 / (beta^2 w dt^2), beta = 1 (the default).
  const Eigen::Vector3d corner(half, half, -half);
  const double I = m * (2 * half) * (2 * half) / 6;  // a cube's, about any axis
  const double w = contact_physics::FreeBodyDelassus(m, Eigen::Vector3d(I, I, I), corner);
  const double overlap = (m * g / 4) * dt * dt * w / (4 * kPi * kPi);
  for (const sim::Row& row : run.rows) {
    if (row.time < 0.3) continue;
    CHECK(row.body_linear_velocity.col(box).norm() < 1e-6);
    REQUIRE(row.contacts.size() == 4);
    for (const sim::ContactRow& c : row.contacts) CHECK(c.signed_distance == Approx(-overlap).epsilon(0.02));
  }
}

}  // namespace
}  // namespace csim::scenes
