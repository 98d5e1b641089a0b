// Joint limits through a whole scene (docs/design/joint-limits.md: near-rigid one-sided
// constraints), and a contact solve that cannot converge ending the run as `failed` with every good
// step kept (with advice for the Hunt & Crossley models that converge slowly in impacts).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

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

TEST_CASE("a long chain whose limits engage stays within them, every step certified",
          "[contact-physics][limits]") {
  // 50 links of 0.1 m (0.1 kg) hanging from a hinge released at 1.2 rad, each joint limited
  // to +-0.05 rad and starting at 0.02: as the chain swings the limits engage one after the
  // other. A near-rigid limit on a light link deep in a 50-velocity tree makes the cost
  // along a Newton direction so stiff that its derivative jumps by more than the exact line
  // search's tolerance between neighbouring doubles, so the search must accept a root
  // bracketed by two adjacent doubles (tests/solver/line_search_test.cc) rather than fail.
  std::string yaml =
      "csim: 1\nsettings: {time_step: 1.0e-3, duration: 0.1, output: {contacts: false}}\nbodies:\n";
  std::string joints = "joints:\n";
  for (int i = 0; i < 50; ++i) {
    const std::string link = "l" + std::to_string(i);
    yaml += "  - {name: " + link +
            ", mass: 0.1, com: [0, 0, -0.05], inertia: [1.0e-4, 1.0e-4, 1.0e-5, 0, 0, 0]}\n";
    joints += "  - {name: j" + std::to_string(i) + ", type: revolute, parent: " +
              (i == 0 ? std::string("world") : "l" + std::to_string(i - 1)) + ", child: " + link +
              ", pose: {position: [0, 0, " + (i == 0 ? "5.5" : "-0.1") +
              "]}, axis: [0, 1, 0], damping: [0.001], initial: {q: [" + (i == 0 ? "1.2" : "0.02") +
              "]}" + (i == 0 ? "" : ", limits: {lower: [-0.05], upper: [0.05]}") + "}\n";
  }
  const SceneRun run = RunScene(yaml + joints);  // REQUIREs a completed run
  // Certified: SAP eq. 26 with eps_r = 1e-6 bounds every step's momentum error.
  CHECK(run.result.max_momentum_error < 1e-6);
  // The limits hold, up to the near-rigid compliance (well under 1e-3 rad, as above).
  double widest = 0.0;
  for (const sim::Row& row : run.rows)
    for (int j = 1; j < 50; ++j) widest = std::max(widest, std::abs(row.q[j]));
  CHECK(widest > 0.045);  // the limits were reached
  CHECK(widest < 0.05 + 1e-3);
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
