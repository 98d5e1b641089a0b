// Multi-body contact oracles:
//   - a stack of three boxes on the ground stays put (static equilibrium is a solution the
//     stiction model must hold: drift only at the creep level, which is zero without a
//     tangential load), and the ground carries the whole weight;
//   - solver certification on a clutter scene: every step with constraints ends with the
//     dimensionless momentum error (SAP eq. 32, docs/design/accuracy-metrics.md §1) within the
// requested relative     tolerance, as the stopping criterion (SAP eq. 26) promises.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>

#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

using Eigen::Vector3d;

// Three 0.1 m cubes of 1 kg, touching, on a halfspace; near-rigid contact, mu = 0.7. The
// upper boxes are offset and the top one turned by 0.4 rad about z, so the box-box
// manifolds are not symmetric about the centres of mass (a perfectly centred stack would
// stay put by symmetry alone). Every centre of mass above an interface stays inside it:
// statically stable.
const char* kStack = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 3.0}
materials:
  default: {stiffness: .inf, friction: 0.7}
world: {geometry: [{shape: halfspace}]}
bodies:
  - {name: b0, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}], pose: {position: [0, 0, 0.05]}}
  - {name: b1, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}], pose: {position: [0.02, -0.01, 0.15]}}
  - {name: b2, mass: 1.0, geometry: [{shape: box, size: [0.1, 0.1, 0.1]}], pose: {position: [-0.01, 0.015, 0.25], rpy: [0, 0, 0.4]}}
)";

// Rotation angle [rad] between two unit quaternions (w, x, y, z).
// (Eigen's angularDistance: 2 atan2(|vec|, |w|) of a^-1 b, accurate near 0, unlike acos.)
double AngleBetween(const Eigen::Vector4d& a, const Eigen::Vector4d& b) {
  const Eigen::Quaterniond qa(a[0], a[1], a[2], a[3]), qb(b[0], b[1], b[2], b[3]);
  return qa.normalized().angularDistance(qb.normalized());
}

TEST_CASE("stack: three boxes stay put and the ground carries the whole weight",
          "[contact-physics]") {
  const SceneRun run = RunScene(kStack);
  const double dt = 1e-3, g = 9.81;
  const size_t settled = static_cast<size_t>(std::lround(1.0 / dt));  // row at t = 1 s
  REQUIRE(run.rows.size() == 3001);
  const sim::Row& ref = run.rows[settled];
  double drift = 0, rotation = 0, vertical = 0;
  for (size_t i = settled; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    for (int b = 0; b < 3; ++b) {
      drift = std::max(drift, (row.body_position.col(b) - ref.body_position.col(b)).head<2>().norm());
      vertical = std::max(vertical, std::abs(row.body_position(2, b) - ref.body_position(2, b)));
      rotation = std::max(rotation, AngleBetween(row.body_quaternion.col(b), ref.body_quaternion.col(b)));
    }
  }
  Report("stack: max horizontal drift over [1, 3] s", drift, 0.0);
  Report("stack: max rotation over [1, 3] s", rotation, 0.0);
  Report("stack: max vertical motion over [1, 3] s", vertical, 0.0);
  // There is no tangential load, so even the creep v = sigma w dt F (docs/design/sap-problem.md
  // §5.3) has F = 0: any drift or turn is a defect, and the bounds only leave room for round-off.
  CHECK(drift < 1e-4);
  CHECK(rotation < 1e-3);
  // Steady heights: near-rigid penetrations are ~m g dt^2 w / (4 pi^2) ~ 1e-7 m per
  // interface and constant at rest; 1e-6 m bounds any residual settling.
  CHECK(vertical < 1e-6);
  // Heights: 0.05, 0.15, 0.25 m less the accumulated penetrations (each < 1e-5 m).
  for (int b = 0; b < 3; ++b)
    CHECK(run.rows.back().body_position(2, b) == Approx(0.05 + 0.1 * b).margin(1e-5));
  // Force balance of the whole stack: the ground's contacts carry 3 m g upward; each box
  // carries the weight above it. 1e-5 relative: eps_r = 1e-6 with a 10x margin.
  const sim::Row& last = run.rows.back();
  Vector3d ground = Vector3d::Zero();
  for (const sim::ContactRow& c : last.contacts) {
    if (c.body_a == -1) ground += c.force;
    if (c.body_b == -1) ground -= c.force;
  }
  Report("stack: ground reaction z", ground.z(), 3 * g);
  CHECK(ground.z() == Approx(3 * g).epsilon(1e-5));
  CHECK(ground.head<2>().norm() < 1e-6 * 3 * g);
  for (int b = 0; b < 3; ++b) {
    // Net contact force on box b balances its own weight.
    CHECK(TotalForceOn(last, b).z() == Approx(g).epsilon(1e-5));
  }
}

// Ten objects (spheres and boxes of different sizes and masses) dropped in a heap onto
// the ground so that they land on each other: sphere-sphere, sphere-box, box-box and
// ground contacts, with impacts, sliding, rolling and resting phases.
const char* kClutter = R"(
csim: 1
settings: {time_step: 2.0e-3, duration: 1.5, output: {every: 1}}
materials:
  default: {stiffness: .inf, friction: 0.6}
  soft: {stiffness: 1.0e5, dissipation_time: 5.0e-3, friction: 0.9}
world: {geometry: [{shape: halfspace}]}
bodies:
  - {name: s0, mass: 0.2, geometry: [{shape: sphere, radius: 0.04}], pose: {position: [-0.01, 0.00, 0.05]}}
  - {name: s1, mass: 0.1, geometry: [{shape: sphere, radius: 0.03}], pose: {position: [0.02, 0.01, 0.14]}}
  - {name: s2, mass: 0.3, geometry: [{shape: sphere, radius: 0.05, material: soft}], pose: {position: [-0.03, 0.02, 0.25]}}
  - {name: s3, mass: 0.05, geometry: [{shape: sphere, radius: 0.02}], pose: {position: [0.06, -0.04, 0.10]}}
  - {name: s4, mass: 0.15, geometry: [{shape: sphere, radius: 0.035}], pose: {position: [-0.07, -0.05, 0.08]}}
  - {name: k0, mass: 0.5, geometry: [{shape: box, size: [0.12, 0.08, 0.05]}], pose: {position: [0.10, 0.00, 0.03]}}
  - {name: k1, mass: 0.3, geometry: [{shape: box, size: [0.08, 0.08, 0.08]}], pose: {position: [0.12, 0.02, 0.22], rpy: [0.3, 0.2, 0.1]}}
  - {name: k2, mass: 0.4, geometry: [{shape: box, size: [0.10, 0.05, 0.05], material: soft}], pose: {position: [-0.02, -0.01, 0.38], rpy: [0.0, 0.5, 0.7]}}
  - {name: k3, mass: 0.2, geometry: [{shape: box, size: [0.06, 0.06, 0.04]}], pose: {position: [0.00, 0.09, 0.12], rpy: [0.6, 0.0, 0.0]}}
  - {name: k4, mass: 0.25, geometry: [{shape: box, size: [0.07, 0.05, 0.06]}], pose: {position: [0.04, -0.02, 0.50], rpy: [0.2, 0.9, 0.3]},
     velocity: {linear: [0, 0, -1.0], angular: [2, 0, 1]}}
)";

TEST_CASE("clutter: every constrained step meets the solver's relative tolerance",
          "[contact-physics]") {
  const SceneRun run = RunScene(kClutter);
  const double tolerance = run.scene.settings.solver.relative_tolerance;
  REQUIRE(tolerance == 1e-6);  // the default this test certifies
  int constrained_steps = 0, object_object_steps = 0, max_contacts = 0, max_iterations = 0;
  double worst = 0;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const sim::Row& row = run.rows[i];
    max_iterations = std::max(max_iterations, row.solver.iterations);
    if (row.contacts.empty()) continue;
    ++constrained_steps;
    max_contacts = std::max(max_contacts, static_cast<int>(row.contacts.size()));
    const bool object_object = std::any_of(row.contacts.begin(), row.contacts.end(),
        [](const sim::ContactRow& c) { return c.body_a >= 0 && c.body_b >= 0; });
    object_object_steps += object_object;
    worst = std::max(worst, row.solver.momentum_error);
    INFO("step " << row.step << ": " << row.contacts.size() << " contacts, "
                 << row.solver.iterations << " iterations");
    // SAP eq. 26 with eps_a = 1e-14 stops at ||D grad|| <= eps_a + eps_r max(||D p||,
    // ||D j_c||), so e_m <= eps_r + eps_a / max(...); the second term is < 1e-12 here
    // (momenta ~1e-3 sqrt(J) and up), so e_m <= 1.000001 eps_r. A step that ended on the
    // cost-stagnation criterion instead must not leave a larger error either.
    CHECK(row.solver.momentum_error <= tolerance * (1 + 1e-6));
  }
  Report("clutter: worst momentum error of a constrained step", worst, tolerance);
  if (std::getenv("CSIM_PHYSICS_VERBOSE") != nullptr)
    std::printf("  clutter: %d constrained steps, %d with object-object contact, up to %d "
                "contacts, up to %d iterations\n", constrained_steps, object_object_steps,
                max_contacts, max_iterations);
  CHECK(run.result.max_momentum_error <= tolerance * (1 + 1e-6));
  // The scene must exercise what it claims: contact on every step after the first impacts,
  // objects on objects, and a real multi-contact problem.
  CHECK(constrained_steps > static_cast<int>(run.rows.size()) / 2);
  CHECK(object_object_steps > 100);
  CHECK(max_contacts >= 20);
  CHECK(max_iterations < run.scene.settings.solver.max_iterations);
}

}  // namespace
}  // namespace csim::contact_physics
