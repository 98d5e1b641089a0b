// The contact solve's warm start (contact_step.h): v0 on the first step, then the linear
// extrapolation v0 + (v0 - v_-1) of the last two steps, or v0 throughout with
// warm_start: previous. On a box decelerating uniformly while it slides, the extrapolation is
// the exact next velocity, so the solves need fewer Newton iterations, and both warm starts
// reach the same trajectory within the solver tolerance.

#include <catch2/catch.hpp>

#include <string>

#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"

namespace csim::integrator {
namespace {

// A 1 kg, 10 cm box sliding at 2 m/s on the ground with mu = 0.3: it decelerates at
// mu g = 2.94 m/s^2 and stops after 0.68 s.
const char* kScene = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 0.3, solver: {warm_start: WARM}}
materials:
  ground: {stiffness: 1.0e6, dissipation_time: 0.01, friction: 0.3}
world: {geometry: [{shape: halfspace, material: ground}]}
bodies:
  - name: box
    mass: 1.0
    geometry: [{shape: box, size: [0.1, 0.1, 0.1], material: ground}]
    pose: {position: [0, 0, 0.0499975]}  # resting: 4 corners x 1e6 N/m carry m g
    velocity: {linear: [2.0, 0, 0]}
)";

struct Run {
  std::vector<Eigen::VectorXd> v, guess;
  int iterations = 0;
};

Run Slide(const std::string& warm, int steps) {
  std::string yaml = kScene;
  yaml.replace(yaml.find("WARM"), 4, warm);
  const io::LoadedScene scene = io::LoadSceneFromText(yaml, "slide.yaml", {});
  const multibody::Model& model = scene.model;
  StepWorkspace ws = MakeStepWorkspace(model, integrator::TreeSolver::kAuto);
  ContactStepWorkspace cws(model);
  cws.solver.set_parameters(scene.settings.solver);  // warm_start: WARM
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  Run run;
  for (int i = 0; i < steps; ++i) {
    run.v.push_back(s.v);
    REQUIRE(
        StepWithContact(model, {0.0, 1.0, Gyroscopic::kImplicit}, {}, {}, 1e-3, false, s, ws, cws)
            .ok());
    run.guess.push_back(cws.warm_start.guess);
    run.iterations += cws.stats.iterations;
  }
  run.v.push_back(s.v);
  return run;
}

TEST_CASE("warm start: v0 first, then v0 + (v0 - v_-1), fewer iterations, same motion",
          "[integrator][contact]") {
  const int steps = 300;
  const Run extrapolated = Slide("extrapolated", steps);
  const Run previous = Slide("previous", steps);
  // The guesses are exactly what contact_step.h says.
  CHECK(extrapolated.guess[0] == extrapolated.v[0]);
  for (int i = 1; i < steps; ++i) {
    CHECK(extrapolated.guess[i] == 2.0 * extrapolated.v[i] - extrapolated.v[i - 1]);
    CHECK(previous.guess[i] == previous.v[i]);
  }
  INFO("Newton iterations over " << steps << " steps: extrapolated " << extrapolated.iterations
                                 << ", previous " << previous.iterations);
  CHECK(extrapolated.iterations < previous.iterations);
  // Same motion from both: the box's x velocity after 0.3 s. Coulomb predicts
  // 2 - mu g t = 1.1171 m/s; SAP's regularized sliding (the contact glides up slightly,
  // docs/design/sap-problem.md §5) decelerates a little less, hence the loose first check.
  const double vx_extrapolated = extrapolated.v.back()[3], vx_previous = previous.v.back()[3];
  CHECK(vx_extrapolated == Approx(2.0 - 0.3 * 9.81 * 0.3).epsilon(5e-3));
  CHECK(vx_extrapolated == Approx(vx_previous).epsilon(1e-6));
}

}  // namespace
}  // namespace csim::integrator
