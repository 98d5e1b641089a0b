// Joint limits through a whole scene (math.md 7.2: near-rigid one-sided constraints), and a
// contact solve that cannot converge ending the run as `failed` with every good step kept
// (with advice for the Hunt & Crossley models that converge slowly in impacts).

#include <catch2/catch.hpp>

#include <cmath>

#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"
#include "tests/contact_physics/physics_helpers.h"

namespace csim::contact_physics {
namespace {

// A pendulum released horizontally swings down through q = 0 toward its lower limit.
const char* kLimitedPendulum = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 2.0, integrator: symplectic_euler}
bodies:
  - name: bob
    mass: 1.0
    geometry: [{shape: sphere, radius: 0.05, pose: {position: [0, 0, -0.5]}}]
joints:
  - name: hinge
    type: revolute
    parent: world
    child: bob
    axis: [0, 1, 0]
    initial: {q: [1.5707963]}
    limits: {lower: [-0.3], upper: [2.0]}
)";

TEST_CASE("a joint limit stops the swing", "[contact-physics][limits]") {
  const SceneRun run = RunScene(kLimitedPendulum);
  double lowest = INFINITY;
  for (const sim::Row& row : run.rows) lowest = std::min(lowest, row.q[0]);
  // Near-rigid limit (beta = 0.1): it may be passed by about the near-rigid compliance,
  // R = beta^2 w / (4 pi^2) with w = 1 / A_jj, under the swing's impulse: well under 1e-3 rad.
  CHECK(lowest > -0.3 - 1e-3);
  // Without the limit the swing would reach -pi/2 (energy conservation).
  CHECK(lowest < -0.29);
  // At -0.3 rad gravity pulls back toward 0: the bob leaves the limit and swings back, and
  // the limit takes energy out, so it never again rises above its release angle pi/2.
  double highest = -INFINITY;
  for (const sim::Row& row : run.rows) highest = std::max(highest, row.q[0]);
  CHECK(highest <= 1.5707963 + 1e-6);
}

// A box landing tumbling and sliding, with one Newton iteration allowed per step;
// SETTINGS and MATERIALS are filled in by the test.
const char* kTumblingLanding = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0, solver: {max_iterations: 1}SETTINGS}
MATERIALS
world:
  geometry: [{shape: halfspace}]
bodies:
  - name: box
    mass: 1.0
    geometry: [{shape: box, size: [0.1, 0.1, 0.1]}]
    pose: {position: [0, 0, 0.1], rpy: [0.3, 0.2, 0.1]}
    velocity: {linear: [2, 0, -1], angular: [3, 5, 1]}
)";

sim::RunResult RunToFailure(const std::string& settings, const std::string& materials,
                            sim::MemoryRecorder* recorder) {
  const std::string yaml = Fill(Fill(kTumblingLanding, "SETTINGS", settings), "MATERIALS", materials);
  io::LoadedScene scene = io::LoadSceneFromText(yaml, "fail.yaml", {});
  sim::RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  return sim::Simulate(scene.model, scene.settings, info, *recorder, {});
}

TEST_CASE("a contact solve that cannot converge fails the run and keeps the good steps", "[contact-physics][failure]") {
  sim::MemoryRecorder recorder;
  const sim::RunResult result = RunToFailure("", "", &recorder);
  REQUIRE(result.status == sim::RunStatus::kFailed);
  CHECK(recorder.status() == sim::RunStatus::kFailed);
  CHECK(result.reason.find("contact solve") != std::string::npos);
  // SAP's failure carries no advice meant for the Hunt & Crossley models.
  CHECK(result.reason.find("lagged_regularized") == std::string::npos);
  // A tumbling, sliding landing needs several Newton iterations (a flat landing in pure
  // stiction is quadratic and converges in one). The box falls about 2 cm before it
  // touches: those steps are all recorded, and the last recorded state is the last good
  // one, before the failing step.
  REQUIRE(recorder.rows().size() > 10);
  CHECK(recorder.rows().back().step == result.steps);
  CHECK(recorder.rows().back().time == Approx(result.sim_time));
}

TEST_CASE("a Hunt & Crossley step that runs out of iterations says what to try",
          "[contact-physics][failure]") {
  // The same tumbling landing with one Newton iteration allowed: the lagged and similar
  // models fail with a hint towards lagged_regularized and solver.max_iterations (their
  // conditioning in impacts, [ICF] sec. VIII); lagged_regularized gets no such hint.
  for (const char* model : {"lagged", "similar", "lagged_regularized"}) {
    INFO(model);
    sim::MemoryRecorder recorder;
    const sim::RunResult result = RunToFailure(
        std::string(", contact_model: ") + model,
        "materials: {default: {stiffness: 1.0e6, hunt_crossley: 10.0, friction: 0.5}}", &recorder);
    REQUIRE(result.status == sim::RunStatus::kFailed);
    CHECK(result.reason.find("maximum iterations") != std::string::npos);
    const bool hinted = result.reason.find("try contact_model lagged_regularized, or raise "
                                           "solver.max_iterations") != std::string::npos;
    CHECK(hinted == (std::string(model) != "lagged_regularized"));
  }
}

}  // namespace
}  // namespace csim::contact_physics
