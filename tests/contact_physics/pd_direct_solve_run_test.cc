// The direct solve of PD rows (engine/solver/pd_rows_direct_solve.h) through whole runs of the
// robot scenes: it carries their steps, and the trajectories it gives agree with the Newton
// solve's (PdActuators::set_direct_solve(false)) to round-off.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <Eigen/Dense>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/theta_method.h"
#include "engine/io/scene_loader.h"

namespace csim::contact_physics {
namespace {

TEST_CASE("PD servo scenes: the direct solve carries the steps and matches the Newton solve",
          "[actuators][robots]") {
  for (const char* file : {"scenes/pd_arm.yaml", "bench/scenes/arm7_actuated.yaml"}) {
    INFO(file);
    const io::LoadedScene scene = io::LoadScene(std::string(CSIM_SOURCE_DIR) + "/" + file, {});
    const multibody::Model& model = scene.model;
    const integrator::ThetaParameters p{0.0, 1.0, integrator::Gyroscopic::kImplicit};
    const double dt = 1e-3;
    integrator::StepWorkspace ws_a = integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
    integrator::StepWorkspace ws_b = integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
    integrator::ContactStepWorkspace direct(model), newton(model);
    newton.actuators.set_direct_solve(false);
    multibody::State a{0.0, model.InitialQ(), model.InitialV()}, b = a;
    double max_dq = 0.0, max_dv = 0.0, max_deffort = 0.0;
    int direct_steps = 0, saturated_steps = 0, saturated_differ = 0;
    const int steps = 4000;
    for (int n = 0; n < steps; ++n) {
      REQUIRE(integrator::StepWithContact(model, p, {}, {}, dt, false, a, ws_a, direct).ok());
      REQUIRE(integrator::StepWithContact(model, p, {}, {}, dt, false, b, ws_b, newton).ok());
      direct_steps += direct.actuators.last_step_direct();
      REQUIRE_FALSE(newton.actuators.last_step_direct());
      max_dq = std::max(max_dq, (a.q - b.q).lpNorm<Eigen::Infinity>());
      max_dv = std::max(max_dv, (a.v - b.v).lpNorm<Eigen::Infinity>());
      max_deffort = std::max(
          max_deffort,
          (direct.actuator_outputs.effort - newton.actuator_outputs.effort).lpNorm<Eigen::Infinity>());
      const auto& sa = direct.actuator_outputs.saturated;
      saturated_steps += std::count(sa.begin(), sa.end(), 1) > 0;
      saturated_differ += sa != newton.actuator_outputs.saturated;
    }
    INFO("direct steps " << direct_steps << " / " << steps << ", steps with a saturated servo "
                         << saturated_steps << ", max |dq| " << max_dq << " rad, max |dv| "
                         << max_dv << " rad/s, max |d effort| " << max_deffort << " N m");
    CHECK(direct_steps >= steps * 9 / 10);
    CHECK(max_dq <= 1e-12);
    CHECK(max_dv <= 1e-9);
    CHECK(max_deffort <= 1e-6);
    CHECK(saturated_differ == 0);
  }
}

TEST_CASE("PD servos: an explicit servo (c = 0) is left to the Newton solve", "[actuators]") {
  // Explicit Euler (theta_q = 0) with kd = 0: the effort does not depend on v, the row is an
  // explicit impulse (sap_pd_constraint.h) that the direct solve does not take.
  const io::LoadedScene scene = io::LoadSceneFromText(R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 0.01, integrator: explicit_euler, gravity: [0, 0, 0]}
bodies:
  - {name: slider, mass: 2, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
joints:
  - {name: slide, type: prismatic, parent: world, child: slider, axis: [1, 0, 0],
     initial: {q: [0.3]}}
trajectories:
  ref: {joints: [slide], interpolation: linear, keyframes: [{t: 0, q: 0}, {t: 1, q: 0}]}
actuators:
  - {name: servo, joint: slide, kp: 50, kd: 0, effort_limit: 100, target: ref}
)", "explicit.yaml", {});
  const multibody::Model& model = scene.model;
  const integrator::ThetaParameters p{0.0, 0.0, integrator::Gyroscopic::kImplicit};
  integrator::StepWorkspace ws =
      integrator::MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(model);
  multibody::State state{0.0, model.InitialQ(), model.InitialV()};
  const double q0 = state.q[0];
  REQUIRE(integrator::StepWithContact(model, p, {}, {}, 1e-3, false, state, ws, cws).ok());
  CHECK_FALSE(cws.actuators.last_step_direct());
  CHECK(cws.actuator_outputs.effort[0] == Approx(-50.0 * q0).epsilon(1e-14));  // -kp q0
}

}  // namespace
}  // namespace csim::contact_physics
