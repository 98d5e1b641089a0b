#pragma once
// Stepping a scene with contact outside the run loop, for tests that look at every step's
// contact problem and solution in the step's own workspace (sim::Simulate hands a recorder
// rows, not the problem). Header-only: the benchmark's test program (csim_bench_tests)
// links none of tests/support's sources.

#include <catch2/catch.hpp>

#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/position_update.h"
#include "engine/sim/simulate.h"

namespace csim::testing {

/// Steps `scene` `steps` times from its initial state (quaternions normalized) with its own
/// time step, integrator, contact and solver settings, without reporting contacts, and
/// calls after_step(step, cws) after each step: `step` counts from 1 and the state's time is
/// then step * dt. REQUIREs every step to succeed.
template <typename AfterStep>
void StepSceneWithContact(const io::LoadedScene& scene, int steps, AfterStep after_step) {
  const integrator::ThetaParameters theta{scene.settings.integrator.theta,
                                          scene.settings.integrator.theta_q,
                                          scene.settings.gyroscopic};
  const integrator::FreeMotionSettings free_motion;
  const contact::ContactParameters contact = sim::ContactParametersFor(scene.settings);
  integrator::StepWorkspace ws =
      integrator::MakeStepWorkspace(scene.model, integrator::TreeSolver::kAuto);
  integrator::ContactStepWorkspace cws(scene.model);
  cws.solver.set_parameters(scene.settings.solver);
  multibody::State state{0.0, scene.model.InitialQ(), scene.model.InitialV()};
  multibody::NormalizeQuaternions(scene.model, &state.q);
  const double dt = scene.settings.time_step;
  for (int step = 1; step <= steps; ++step) {
    REQUIRE(integrator::StepWithContact(scene.model, theta, free_motion, contact, dt,
                                        /*report_contacts=*/false, state, ws, cws)
                .ok());
    state.t = step * dt;
    after_step(step, static_cast<const integrator::ContactStepWorkspace&>(cws));
  }
}

}  // namespace csim::testing
