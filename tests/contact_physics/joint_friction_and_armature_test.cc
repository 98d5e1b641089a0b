// Joint armature and joint dry friction through whole runs (docs/design/time-step.md §1,
// docs/design/actuators-and-constraints.md §3), against closed forms: a slider falling with
// its rotor's inertia added and a friction effort taken off, a pendulum whose period and
// energy are those of the larger inertia, and a pendulum held by friction that creeps at
// the near-rigid rate R dt tau with R = beta^2 / (4 pi^2 A_jj). Each runs with the tree
// solved densely and by the articulated-body recursions.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kG = 9.81;
// beta of the joint-friction constraint (SapJointFrictionParameters), R = kNearRigid A_jj^-1.
constexpr double kNearRigid = 0.1 * 0.1 / (4 * kPi * kPi);

// A 2 kg slider on a vertical prismatic joint, falling from rest under gravity.
const char* kSlider = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 0.5, integrator: symplectic_euler, tree_solver: TREE}
bodies:
  - {name: slider, mass: 2.0, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
joints:
  - {name: slide, type: prismatic, parent: world, child: slider, axis: [0, 0, 1],
     armature: ARMATURE, friction: FRICTION}
)";

TEST_CASE("a falling slider accelerates at (m g - f_s) / (m + armature), dense or articulated",
          "[contact-physics][armature][joint-friction]") {
  const double m = 2.0, dt = 1e-3;
  for (const std::string tree : {"dense", "articulated"})
    for (const auto& [armature, friction] :
         {std::pair{3.0, 0.0}, std::pair{0.0, 5.0}, std::pair{3.0, 5.0}}) {
      INFO(tree << ", armature " << armature << ", friction " << friction);
      const SceneRun run = RunScene(Fill(
          Fill(Fill(kSlider, "TREE", tree), "ARMATURE", Num(armature)), "FRICTION", Num(friction)));
      // Symplectic Euler on a constant acceleration: v_n = -n dt acc exactly; the friction
      // saturates from the first step (m g - f_s is far above the creep band), so its
      // impulse is exactly dt f_s against the motion.
      const double acc = (m * kG - friction) / (m + armature);
      REQUIRE(run.rows.size() == 501);
      for (const sim::Row& row : run.rows) {
        const double expected = -row.step * dt * acc;
        REQUIRE(row.v[0] == Approx(expected).margin(1e-12).epsilon(1e-9));
        if (friction > 0.0) {
          REQUIRE(row.joint_friction.size() == 1);
          REQUIRE(row.joint_friction[0] == Approx(row.step == 0 ? 0.0 : friction).epsilon(1e-12));
        } else {
          REQUIRE(row.joint_friction.size() == 0);  // no joint friction in the model
        }
      }
      // The rotor's kinetic energy counts: 1/2 (m + armature) v^2.
      const double v = run.rows.back().v[0];
      CHECK(run.rows.back().kinetic_energy == Approx(0.5 * (m + armature) * v * v).epsilon(1e-12));
    }
}

// A 1 kg bob (a sphere of radius 5 cm) 1 m below a hinge with a rotor of armature ARMATURE.
const char* kGearedPendulum = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: DURATION, integrator: INTEGRATOR, tree_solver: TREE}
bodies:
  - name: bob
    mass: 1.0
    geometry: [{shape: sphere, radius: 0.05, pose: {position: [0, 0, -1.0]}}]
joints:
  - {name: hinge, type: revolute, parent: world, child: bob, axis: [0, 1, 0],
     initial: {q: [1.0]}, armature: ARMATURE}
)";

TEST_CASE("a pendulum with armature swings with the period of I + armature and keeps "
          "that energy", "[contact-physics][armature]") {
  const double m = 1.0, L = 1.0, r = 0.05, theta0 = 1.0, armature = 0.5;
  const double I = m * L * L + 0.4 * m * r * r + armature;
  // The exact period at amplitude theta0: 2 pi sqrt(I / (m g L)) / AGM(1, cos(theta0 / 2)).
  double a = 1.0, b = std::cos(theta0 / 2);
  for (int i = 0; i < 60; ++i) std::tie(a, b) = std::pair{0.5 * (a + b), std::sqrt(a * b)};
  const double period = 2 * kPi * std::sqrt(I / (m * kG * L)) / a;
  const auto scene = [&](const std::string& tree, const std::string& integrator, double duration) {
    return Fill(Fill(Fill(Fill(kGearedPendulum, "ARMATURE", Num(armature)), "TREE", tree),
                     "INTEGRATOR", integrator),
                "DURATION", Num(duration));
  };
  std::vector<std::vector<double>> q_by_tree;
  for (const std::string tree : {"dense", "articulated"}) {
    INFO(tree);
    const SceneRun run = RunScene(scene(tree, "symplectic_euler", 8.0));
    std::vector<double> t, q;
    for (const sim::Row& row : run.rows) t.push_back(row.time), q.push_back(row.q[0]);
    const std::vector<double> crossings = [&] {
      std::vector<double> out;
      for (size_t i = 1; i < q.size(); ++i)
        if ((q[i - 1] > 0) != (q[i] > 0))
          out.push_back(t[i - 1] + (t[i] - t[i - 1]) * q[i - 1] / (q[i - 1] - q[i]));
      return out;
    }();
    REQUIRE(crossings.size() >= 5);
    const double measured = 2 * (crossings.back() - crossings.front()) / (crossings.size() - 1);
    Report("geared pendulum period [s], " + tree, measured, period);
    CHECK(measured == Approx(period).epsilon(1e-4));
    q_by_tree.push_back(q);
  }
  // The two solvers take the same steps up to round-off.
  REQUIRE(q_by_tree[0].size() == q_by_tree[1].size());
  for (size_t i = 0; i < q_by_tree[0].size(); ++i)
    REQUIRE(q_by_tree[0][i] == Approx(q_by_tree[1][i]).margin(1e-9));

  // Under midpoint the total energy, the rotor's 1/2 armature v^2 included, stays in a band
  // far narrower than the rotor's share of the swing energy (a third of it here), which
  // leaving that term out would show.
  const SceneRun run = RunScene(scene("dense", "midpoint", period));
  double lo = 1e300, hi = -1e300;
  for (const sim::Row& row : run.rows) {
    const double e = row.kinetic_energy + row.potential_energy;
    lo = std::min(lo, e), hi = std::max(hi, e);
  }
  const double swing_energy = m * kG * L * (1 - std::cos(theta0));
  CHECK(hi - lo < 1e-4 * swing_energy);
}

// A 1 kg bob (a sphere of radius 5 cm) 0.5 m below a hinge, at rest at 0.3 rad, where
// gravity's torque m g L sin 0.3 = 1.45 N m is below the joint's friction limit of 2 N m.
const char* kHeldPendulum = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 2.0, integrator: symplectic_euler, tree_solver: TREE}
bodies:
  - name: bob
    mass: 1.0
    geometry: [{shape: sphere, radius: 0.05, pose: {position: [0, 0, -0.5]}}]
joints:
  - {name: hinge, type: revolute, parent: world, child: bob, axis: [0, 1, 0],
     initial: {q: [0.3]}, friction: 2.0, armature: ARMATURE}
)";

TEST_CASE("below its friction limit a joint creeps at R dt tau, R = beta^2 / (4 pi^2 A_jj)",
          "[contact-physics][joint-friction]") {
  const double m = 1.0, L = 0.5, r = 0.05, q0 = 0.3, f_s = 2.0, dt = 1e-3, duration = 2.0;
  for (const std::string tree : {"dense", "articulated"})
    for (const double armature : {0.0, 0.249}) {
      INFO(tree << ", armature " << armature);
      const SceneRun run =
          RunScene(Fill(Fill(kHeldPendulum, "TREE", tree), "ARMATURE", Num(armature)));
      // A_jj = M_jj (symplectic Euler, no damping): the bob's inertia about the hinge plus
      // the armature; the friction's Delassus estimate is its inverse.
      const double A = m * L * L + 0.4 * m * r * r + armature;
      const double R = kNearRigid / A;
      double fastest = 0.0;
      for (const sim::Row& row : run.rows) fastest = std::max(fastest, std::abs(row.v[0]));
      // Never faster than the creep band R dt f_s, ...
      CHECK(fastest <= R * dt * f_s);
      // ... and in it at R dt tau, tau = m g L sin q the torque friction holds: v settles to
      // it within a step (v' = (A v + dt tau) / (A + 1/R)).
      const sim::Row& last = run.rows.back();
      const double tau = m * kG * L * std::sin(last.q[0]);
      Report("creep speed [rad/s], " + tree, -last.v[0], R * dt * tau);
      CHECK(-last.v[0] == Approx(R * dt * tau).epsilon(1e-4));
      CHECK(std::abs(last.q[0] - q0) <= duration * R * dt * f_s);
      // The friction effort balances gravity's torque (creeping steadily, nothing accelerates).
      CHECK(last.joint_friction[0] == Approx(tau).epsilon(1e-6));
    }
}

// A 2 kg puck (I_zz = 0.1 kg m^2 about its centre, the joint's origin) on a planar joint in
// the horizontal plane, sliding and spinning, with friction on x and on the angle but none
// on y.
const char* kPuck = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 0.6, integrator: symplectic_euler}
bodies:
  - {name: puck, mass: 2.0, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
joints:
  - {name: plane, type: planar, parent: world, child: puck, initial: {v: [1.0, 1.0, 2.0]},
     friction: [1.0, 0, 0.5]}
)";

TEST_CASE("friction on a planar joint acts on each coordinate that has it, alone",
          "[contact-physics][joint-friction]") {
  const SceneRun run = RunScene(kPuck);
  const double m = 2.0, I = 0.1, dt = 1e-3;
  // M = diag(m, m, I) with the centre of mass at the joint's origin, and gravity normal to
  // the plane: each coordinate slows at its own f_s / M_jj until it stops, x at
  // 0.5 m/s^2 (after 2 s), the angle at 5 rad/s^2 (after 0.4 s); y keeps its speed.
  for (const sim::Row& row : run.rows) {
    const double t = row.time;
    REQUIRE(row.v[0] == Approx(1.0 - t * 1.0 / m).margin(1e-12));
    REQUIRE(row.v[1] == 1.0);
    if (t < 0.4 - dt) REQUIRE(row.v[2] == Approx(2.0 - t * 0.5 / I).margin(1e-12));
    if (t > 0.4 + dt) REQUIRE(std::abs(row.v[2]) <= kNearRigid / I * dt * 0.5);
    if (row.step > 0) {
      REQUIRE(row.joint_friction[0] == Approx(-1.0).epsilon(1e-12));
      REQUIRE(row.joint_friction[1] == 0.0);
    }
  }
}

}  // namespace
}  // namespace csim::contact_physics
