// The implicit gyroscopic torque of lone free bodies under theta = 0 (implicit_gyroscopic.h):
// the invariants of torque-free rotation, its convergence to the exact motion, what the
// explicit torque does instead, and which bodies it applies to.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/integrator/implicit_gyroscopic.h"
#include "engine/integrator/theta_method.h"
#include "engine/math/rotation.h"
#include "engine/multibody/energy.h"
#include "engine/multibody/kinematics.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_models.h"

namespace csim::integrator {
namespace {

using multibody::Model;
using multibody::State;

const ThetaParameters kSymplectic{0.0, 1.0, Gyroscopic::kImplicit};
const ThetaParameters kSymplecticExplicit{0.0, 1.0, Gyroscopic::kExplicit};
const ThetaParameters kMidpoint{0.5, 0.5, Gyroscopic::kImplicit};

// Body-frame angular velocity R^T w of the free body of testing::FreeBody.
Eigen::Vector3d BodyAngularVelocity(const State& s) {
  return math::RotationFromQuaternion(s.q.head<4>()).transpose() * s.v.head<3>();
}

// Largest relative change of the kinetic energy and of |L| over `steps` steps, and whether
// the body-frame spin about y reversed (the intermediate axis's flip).
struct Drift {
  double energy = 0.0, momentum = 0.0;
  bool flipped = false;
};

Drift Run(const Model& model, const ThetaParameters& p, double dt, int steps) {
  const Eigen::Matrix3d I = model.bodies[0].inertia;
  StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  State s{0.0, model.InitialQ(), model.InitialV()};
  const Eigen::Vector3d w0 = BodyAngularVelocity(s);
  const double E0 = 0.5 * w0.dot(I * w0), L0 = (I * w0).norm();
  Drift d;
  for (int n = 0; n < steps; ++n) {
    REQUIRE(StepFreeMotion(model, p, FreeMotionSettings{}, dt, s, ws).ok());
    const Eigen::Vector3d w = BodyAngularVelocity(s);
    if (!std::isfinite(w.squaredNorm())) {  // the explicit torque's runaway
      d.energy = d.momentum = HUGE_VAL;
      return d;
    }
    d.energy = std::max(d.energy, std::abs(0.5 * w.dot(I * w) - E0) / E0);
    d.momentum = std::max(d.momentum, std::abs((I * w).norm() - L0) / L0);
    d.flipped = d.flipped || w.y() < -0.9 * w0.y();
  }
  return d;
}

TEST_CASE("implicit gyroscopic torque: a torque-free body keeps its energy and |L| under symplectic Euler",
          "[integrator][free-body][gyroscopic]") {
  SECTION("a brick spinning about its intermediate axis flips, energy and |L| to round-off") {
    const Model brick = testing::FreeBody(Eigen::Vector3d(1.0, 2.0, 3.0), Eigen::Vector3d(0.01, 3.0, 0.01));
    const Drift implicit = Run(brick, kSymplectic, 2e-3, 6000);
    const Drift explicit_torque = Run(brick, kSymplecticExplicit, 2e-3, 6000);
    INFO("energy drift " << implicit.energy << " (explicit torque " << explicit_torque.energy
                         << "), |L| drift " << implicit.momentum);
    CHECK(implicit.energy < 1e-11);
    CHECK(implicit.momentum < 1e-11);
    CHECK(implicit.flipped);
    CHECK(explicit_torque.energy > 1e-3);  // what the test tells apart
  }
  SECTION("the brick with its principal axes tilted in the body frame (a full inertia)") {
    Model brick = testing::FreeBody(Eigen::Vector3d(1.0, 2.0, 3.0), Eigen::Vector3d::Zero());
    const Eigen::Matrix3d R = math::RotationFromRpy(Eigen::Vector3d(0.3, -0.5, 0.8));
    brick.bodies[0].inertia = R * Eigen::Vector3d(1.0, 2.0, 3.0).asDiagonal() * R.transpose();
    brick.joints[0].v_initial.head<3>() = R * Eigen::Vector3d(0.01, 3.0, 0.01);  // identity pose
    const Drift implicit = Run(brick, kSymplectic, 2e-3, 6000);
    INFO("energy drift " << implicit.energy << ", |L| drift " << implicit.momentum);
    CHECK(implicit.energy < 1e-11);
    CHECK(implicit.momentum < 1e-11);
  }
  SECTION("the rod of the next section with its origin 5 cm along its axis, off the centre of mass") {
    Model rod = testing::FreeBody(Eigen::Vector3d(1e-4, 1e-4, 5e-6), Eigen::Vector3d(3.0, 0.0, 100.0));
    rod.bodies[0].mass = 0.1;
    rod.bodies[0].com = Eigen::Vector3d(0.0, 0.0, -0.05);
    StepWorkspace ws = MakeStepWorkspace(rod, integrator::TreeSolver::kAuto);
    multibody::Workspace energy_ws = multibody::MakeWorkspace(rod);
    State s{0.0, rod.InitialQ(), rod.InitialV()};
    auto energy = [&] {
      multibody::CalcKinematics(rod, s.t, s.q, s.v, energy_ws);
      return multibody::CalcKineticEnergy(rod, energy_ws);
    };
    const double E0 = energy();
    double worst = 0.0;
    for (int n = 0; n < 2000; ++n) {
      REQUIRE(StepFreeMotion(rod, kSymplectic, FreeMotionSettings{}, 1e-3, s, ws).ok());
      worst = std::max(worst, std::abs(energy() / E0 - 1.0));
    }
    INFO("energy drift " << worst);
    CHECK(worst < 1e-11);
  }
  SECTION("a thin rod spinning at 100 rad/s about its axis with a 3 rad/s tumble") {
    // A capsule link of a rope (0.1 kg, 10 cm, radius 1 cm): axial inertia 20 times smaller
    // than the transverse ones; w dt = 0.1 at dt = 1e-3.
    Model rod = testing::FreeBody(Eigen::Vector3d(1e-4, 1e-4, 5e-6), Eigen::Vector3d(3.0, 0.0, 100.0));
    rod.bodies[0].mass = 0.1;
    const Drift implicit = Run(rod, kSymplectic, 1e-3, 2000);
    const Drift explicit_torque = Run(rod, kSymplecticExplicit, 1e-3, 2000);
    INFO("energy drift " << implicit.energy << " (explicit torque " << explicit_torque.energy << ")");
    CHECK(implicit.energy < 1e-11);
    CHECK(implicit.momentum < 1e-11);
    CHECK(explicit_torque.energy > 10.0);  // the explicit torque pumps energy in: a runaway
  }
}

// Far beyond the rates the step resolves, the midpoint equation is still solved and its
// invariants kept: a link spinning at 5000 and 1e5 rad/s at dt = 1e-3 (w dt = 5 and 100).
TEST_CASE("implicit gyroscopic torque: converges and keeps the invariants at w dt of 5 and 100",
          "[integrator][free-body][gyroscopic]") {
  for (const double spin : {5e3, 1e5}) {
    Model rod = testing::FreeBody(Eigen::Vector3d(8.7e-5, 8.7e-5, 5e-6), Eigen::Vector3d(30.0, 0.0, spin));
    rod.bodies[0].mass = 0.1;
    const Drift d = Run(rod, kSymplectic, 1e-3, 1000);
    INFO("spin " << spin << " rad/s: energy drift " << d.energy << ", |L| drift " << d.momentum);
    CHECK(d.energy < 1e-10);
    CHECK(d.momentum < 1e-10);
  }
}

// The corrected step converges to the exact motion: in body axes the step is the implicit
// midpoint rule on Euler's equations (the position update turns the body about w*, which
// leaves R^T w* as the step made it), so the body-frame angular velocity is second order; the
// orientation, turned about the end velocity w* for dt, is first order. Reference: midpoint
// at dt = 1e-5 (second order: its error is ~1e-10), at t = 1 s.
TEST_CASE("implicit gyroscopic torque: body-frame spin second order, orientation first order",
          "[integrator][free-body][gyroscopic]") {
  const Model body = testing::FreeBody(Eigen::Vector3d(1.0, 2.0, 3.0), Eigen::Vector3d(1.0, 3.0, 2.0));
  auto final_state = [&](const ThetaParameters& p, double dt) {
    StepWorkspace ws = MakeStepWorkspace(body, integrator::TreeSolver::kAuto);
    State s{0.0, body.InitialQ(), body.InitialV()};
    const int steps = static_cast<int>(std::lround(1.0 / dt));
    for (int n = 0; n < steps; ++n)
      REQUIRE(StepFreeMotion(body, p, FreeMotionSettings{}, dt, s, ws).ok());
    return s;
  };
  const State reference = final_state(kMidpoint, 1e-5);
  const Eigen::Matrix3d R_reference = math::RotationFromQuaternion(reference.q.head<4>());
  std::vector<double> spin_errors, orientation_errors;
  for (double dt : {4e-3, 2e-3, 1e-3, 5e-4}) {
    const State s = final_state(kSymplectic, dt);
    spin_errors.push_back((BodyAngularVelocity(s) - BodyAngularVelocity(reference)).norm());
    orientation_errors.push_back((math::RotationFromQuaternion(s.q.head<4>()) - R_reference).norm());
  }
  for (size_t i = 1; i < spin_errors.size(); ++i) {
    const double spin_order = std::log2(spin_errors[i - 1] / spin_errors[i]);
    const double orientation_order = std::log2(orientation_errors[i - 1] / orientation_errors[i]);
    INFO("body-frame spin errors " << spin_errors[i - 1] << " -> " << spin_errors[i] << ", order "
                                   << spin_order << "; orientation errors " << orientation_errors[i - 1]
                                   << " -> " << orientation_errors[i] << ", order " << orientation_order);
    CHECK(spin_order > 1.9);
    CHECK(spin_order < 2.1);
    CHECK(orientation_order > 0.9);
    CHECK(orientation_order < 1.2);
  }
}

// The correction's bookkeeping, on a body whose origin is off its centre of mass, under
// gravity: the free-motion residual M (v* - v0) - dt k stays at round-off with k carrying
// the changes, the angular velocity follows the midpoint torque, and the centre of mass's
// velocity, read from the state after the step (at its new orientation), is exactly
// v_com0 + dt g, step after step, where the explicit step's is off by the centripetal term.
TEST_CASE("implicit gyroscopic torque: off the centre of mass, the residual holds and the centre of mass moves with v_com0 + g t",
          "[integrator][free-body][gyroscopic]") {
  Model body = testing::FreeBody(Eigen::Vector3d(2e-3, 3e-3, 1e-3), Eigen::Vector3d(20.0, -5.0, 60.0));
  const Eigen::Vector3d c_B(0.03, -0.02, 0.05);
  body.bodies[0].com = c_B;
  body.gravity = Eigen::Vector3d(0, 0, -9.81);
  body.joints[0].v_initial.tail<3>() = Eigen::Vector3d(0.5, 0.0, 1.0);
  const double dt = 2e-3;
  auto com_velocity = [&](const State& s) {
    return Eigen::Vector3d(s.v.tail<3>() +
                           s.v.head<3>().cross(math::RotationFromQuaternion(s.q.head<4>()) * c_B));
  };
  const State s0{0.0, body.InitialQ(), body.InitialV()};
  StepWorkspace explicit_ws = MakeStepWorkspace(body, integrator::TreeSolver::kAuto),
                implicit_ws = MakeStepWorkspace(body, integrator::TreeSolver::kAuto);
  REQUIRE(CalcFreeMotion(body, kSymplecticExplicit, FreeMotionSettings{}, dt, s0, explicit_ws).ok());
  REQUIRE(CalcFreeMotion(body, kSymplectic, FreeMotionSettings{}, dt, s0, implicit_ws).ok());
  const Eigen::VectorXd &v_e = explicit_ws.v_star, &v_i = implicit_ws.v_star;
  CHECK((v_i.head<3>() - v_e.head<3>()).norm() > 1e-2);  // it acted: 0.05 rad/s
  CHECK(implicit_ws.momentum_error < 1e-14);
  // The midpoint torque: I (w* - w0) = dt (-w_bar x I w_bar) about the centre of mass
  // (gravity has no torque there).
  const Eigen::Matrix3d& I = body.bodies[0].inertia;
  const Eigen::Vector3d w0 = s0.v.head<3>(), w = v_i.head<3>(), w_bar = 0.5 * (w0 + w);
  CHECK((I * (w - w0) + dt * w_bar.cross(I * w_bar)).norm() < 1e-15 * (I * w0).norm());
  // 500 steps: the centre of mass's velocity after each is v_com0 + g t.
  for (const bool implicit : {true, false}) {
    StepWorkspace ws = MakeStepWorkspace(body, integrator::TreeSolver::kAuto);
    State s = s0;
    const Eigen::Vector3d v_com0 = com_velocity(s0);
    double worst = 0.0;
    for (int n = 1; n <= 500; ++n) {
      REQUIRE(StepFreeMotion(body, implicit ? kSymplectic : kSymplecticExplicit,
                             FreeMotionSettings{}, dt, s, ws).ok());
      worst = std::max(worst, (com_velocity(s) - (v_com0 + n * dt * body.gravity)).norm());
    }
    INFO((implicit ? "implicit" : "explicit") << ": centre of mass's velocity off by " << worst);
    if (implicit) {
      CHECK(worst < 1e-12);
    } else {
      CHECK(worst > 1e-3);  // the explicit centripetal term: what the test tells apart
    }
  }
}

TEST_CASE("implicit gyroscopic torque: a warmed-up step allocates nothing",
          "[integrator][free-body][gyroscopic][allocation]") {
  const Model rod = testing::FreeBody(Eigen::Vector3d(1e-4, 1e-4, 5e-6), Eigen::Vector3d(3.0, 0.0, 100.0));
  StepWorkspace ws = MakeStepWorkspace(rod, integrator::TreeSolver::kAuto);
  REQUIRE(ws.implicit_gyroscopic_bodies.size() == 1);
  State s{0.0, rod.InitialQ(), rod.InitialV()};
  REQUIRE(StepFreeMotion(rod, kSymplectic, FreeMotionSettings{}, 1e-3, s, ws).ok());
  const std::size_t before = testing::AllocationCount();
  for (int n = 0; n < 20; ++n) StepFreeMotion(rod, kSymplectic, FreeMotionSettings{}, 1e-3, s, ws);
  CHECK(testing::AllocationCount() - before == 0);
}

// A step that has already blown up is left to the free motion's own check, which names it
// ("non-finite free-motion velocity"), instead of being reported as a failed Newton solve.
TEST_CASE("implicit gyroscopic torque: a non-finite explicit step is passed through",
          "[integrator][free-body][gyroscopic]") {
  const Model rod = testing::FreeBody(Eigen::Vector3d(1e-4, 1e-4, 5e-6), Eigen::Vector3d(3.0, 0.0, 100.0));
  StepWorkspace ws = MakeStepWorkspace(rod, integrator::TreeSolver::kAuto);
  const State s{0.0, rod.InitialQ(), rod.InitialV()};
  REQUIRE(CalcFreeMotion(rod, kSymplectic, FreeMotionSettings{}, 1e-3, s, ws).ok());
  Eigen::VectorXd v_star = ws.v_star, k = ws.k;
  v_star[2] = std::numeric_limits<double>::quiet_NaN();
  CHECK(ApplyImplicitGyroscopic(rod, ws.implicit_gyroscopic_bodies, ws.mb, 1e-3, 1.0, s.q, s.v,
                                &v_star, &k));
  CHECK(std::isnan(v_star[2]));
}

// The bodies ImplicitGyroscopicBodies picks, by index.
std::vector<int> Picked(const Model& model) {
  std::vector<int> out;
  for (const GyroscopicBody& g : ImplicitGyroscopicBodies(model)) out.push_back(g.body);
  return out;
}

TEST_CASE("implicit gyroscopic torque: lone free bodies with an anisotropic inertia only",
          "[integrator][free-body][gyroscopic]") {
  CHECK(Picked(testing::FreeBody(Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(1, 0, 0))) == std::vector<int>{0});
  // A sphere's or a cube's gyroscopic torque is zero: nothing to correct, the same bits.
  CHECK(Picked(testing::FreeBody(Eigen::Vector3d(2, 2, 2), Eigen::Vector3d(1, 0, 0))).empty());
  Model tilted = testing::FreeBody(Eigen::Vector3d(2, 2, 2), Eigen::Vector3d(1, 0, 0));
  tilted.bodies[0].inertia(0, 1) = tilted.bodies[0].inertia(1, 0) = 0.1;
  CHECK(Picked(tilted) == std::vector<int>{0});
  // Trees keep the explicit forces: a ball-jointed chain, and a free body with a child.
  CHECK(Picked(testing::BallChain(3, 0.1, 0.1, 0.2)).empty());
  Model with_child = testing::FreeBody(Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(1, 0, 0));
  multibody::Joint hinge;
  hinge.name = "hinge";
  hinge.type = multibody::JointType::kRevolute;
  hinge.parent = 0;
  hinge.child = 1;
  hinge.nq = hinge.nv = 1;
  hinge.q_initial = hinge.v_initial = Eigen::VectorXd::Zero(1);
  multibody::Body link = with_child.bodies[0];
  link.name = "link";
  with_child.joints.push_back(hinge);
  with_child.bodies.push_back(link);
  multibody::AssignCoordinates(with_child);
  CHECK(Picked(with_child).empty());
}

}  // namespace
}  // namespace csim::integrator
