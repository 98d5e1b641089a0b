// Contact with bodies that prescribed joints move: their motion enters the contact
// velocity as the known bias v_b (docs/design/contact-models.md §2.1), in both cases the builder
// treats apart: a body outside every tree (moved only by prescribed joints: all of its velocity is
// known) and a body inside a tree whose path to the root holds a prescribed joint (its
// velocity is what the unknowns carry plus the prescribed part).

#include <catch2/catch.hpp>

#include <cmath>

#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kGravity = 9.81;

// Cart driven along x by x(t) = A sin(2 pi f t); the slider hangs from it on a vertical
// prismatic joint (its one unknown) and rests on the ground, so the ground slides under
// it at the cart's speed while nothing in the unknowns moves along x.
const char* kDraggedSlider = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0, integrator: symplectic_euler,
           solver: {relative_tolerance: 1.0e-10}}
materials:
  pad: {friction: 0.4}
world:
  geometry: [{shape: halfspace, material: pad}]
bodies:
  - name: cart
    mass: 1.0
    inertia: [0.01, 0.01, 0.01, 0, 0, 0]
  - name: slider
    mass: 2.0
    geometry: [{shape: sphere, radius: 0.05, material: pad}]
joints:
  - name: drive
    type: prismatic
    parent: world
    child: cart
    axis: [1, 0, 0]
    prescribed: {type: sine, amplitude: [0.1], frequency: 1.0, phase: 0.0}
  - name: lift
    type: prismatic
    parent: cart
    child: slider
    axis: [0, 0, 1]
    initial: {q: [0.05]}
)";

TEST_CASE("the ground slides under a slider that a prescribed cart drags", "[contact-physics][prescribed]") {
  const SceneRun run = RunScene(kDraggedSlider);
  const int slider = run.Body("slider");
  const double m = 2.0, mu = 0.4, A = 0.1, omega = 2 * kPi * 1.0, dt = 1.0e-3;
  int checked = 0;
  double normal_impulse = 0.0, span = 0.0, v_first = NAN, v_last = NAN;
  for (const sim::Row& row : run.rows) {
    if (row.time < 0.05) {
      v_first = row.v[0];  // the lift joint's rate: the slider's vertical velocity
      continue;
    }
    span += dt;
    v_last = row.v[0];
    if (row.contacts.size() != 1) continue;
    const sim::ContactRow& c = row.contacts[0];
    const Eigen::Vector3d f = ForceOn(c, slider);
    normal_impulse += f.z() * dt;
    // The cart's speed when the step began (the bias is taken at the step's start).
    const double speed = A * omega * std::cos(omega * (row.time - dt));
    if (std::abs(speed) < 0.05 || f.z() < 1e-6) continue;  // reversal: regularized stiction
    INFO("t = " << row.time);
    // Nothing in the unknowns moves along x, so the slip is the cart's speed, and the
    // friction is on the cone's boundary against it (SAP's sliding region, gamma_t =
    // mu gamma_n). At these speeds SAP's convex gliding lifts the slider now and then,
    // so f_z varies from step to step; its mean carries the weight (below).
    CHECK(c.slip_speed == Approx(std::abs(speed)).epsilon(1e-6));
    CHECK(f.x() == Approx(-std::copysign(mu * f.z(), speed)).epsilon(1e-6));
    CHECK(std::abs(f.y()) < 1e-9 * f.z());
    ++checked;
  }
  CHECK(checked > 300);
  // Vertical momentum over the checked span: normal impulse minus weight times time is the
  // change of the slider's vertical momentum.
  CHECK(normal_impulse - m * kGravity * span == Approx(m * (v_last - v_first)).margin(1e-6));
  CHECK(normal_impulse / span == Approx(m * kGravity).epsilon(0.05));
}

// A platform moved by x(t) = A cos(2 pi f t) alone (outside every tree; at rest at t = 0,
// like the box on it) carries a free box in stiction: its largest acceleration
// A (2 pi f)^2 = 3.9 m/s^2 needs less friction than mu g = 4.9 m/s^2, so the box moves with
// the platform. Without the platform's motion in the contact velocity the box would stay.
const char* kCarriedBox = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0, integrator: symplectic_euler,
           solver: {relative_tolerance: 1.0e-10}}
materials:
  pad: {friction: 0.5}
bodies:
  - name: platform
    mass: 5.0
    geometry: [{shape: box, size: [1.0, 1.0, 0.1], material: pad}]
  - name: box
    mass: 1.0
    geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: pad}]
    pose: {position: [0.1, 0, 0.1]}
joints:
  - name: drive
    type: prismatic
    parent: world
    child: platform
    axis: [1, 0, 0]
    prescribed: {type: sine, amplitude: [0.1], frequency: 1.0, phase: 1.5707963267948966}
)";

TEST_CASE("a prescribed platform carries a box in stiction", "[contact-physics][prescribed]") {
  const SceneRun run = RunScene(kCarriedBox);
  const int box = run.Body("box");
  const double A = 0.1, omega = 2 * kPi * 1.0;
  int checked = 0;
  for (const sim::Row& row : run.rows) {
    if (row.time < 0.05) continue;
    INFO("t = " << row.time);
    // Stuck: the box's x velocity at the end of a step is the platform's at its start (the
    // bias is taken there), to the near-rigid compliance, so the box trails the platform
    // by one step's motion at most and never slips away from it.
    const double dt = 1.0e-3, lagged = row.time - dt;
    CHECK(row.body_linear_velocity(0, box) == Approx(-A * omega * std::sin(omega * lagged)).margin(2e-4));
    CHECK(row.body_position(0, box) == Approx(A * std::cos(omega * row.time)).margin(A * omega * dt));
    ++checked;
  }
  CHECK(checked > 900);
}

}  // namespace
}  // namespace csim::contact_physics
