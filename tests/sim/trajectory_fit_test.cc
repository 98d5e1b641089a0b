// The fitting driver of `csim fit` (engine/sim/trajectory_fit.h): a run of the sliding box
// at mu = 0.5 is its own data; the fit from mu = 0.35 (30 % off) recovers mu to 1e-6
// relative in at most 20 iterations; a parameter the data does not see, a start at 0 and
// an initial-state path are refused with a message naming them.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"
#include "engine/sim/trajectory_fit.h"

namespace csim::sim {
namespace {

const std::string kBox = std::string(CSIM_SOURCE_DIR) + "/scenes/sliding_box.yaml";
const std::string kSphere = std::string(CSIM_SOURCE_DIR) + "/scenes/falling_sphere.yaml";

SceneFactory Factory(const std::string& file = kBox) {
  return [file](const std::vector<std::string>& overrides, multibody::Model* model,
                Settings* settings) {
    io::LoadedScene scene = io::LoadScene(file, overrides);
    *model = std::move(scene.model);
    *settings = std::move(scene.settings);
  };
}

// The run's joint coordinates at every step, solved as tightly as the fit solves.
Measurement Data(const std::vector<std::string>& overrides, const std::string& file = kBox) {
  std::vector<std::string> o = overrides;
  o.push_back("settings.output.every=1");
  o.push_back("settings.solver.relative_tolerance=1e-12");
  io::LoadedScene scene = io::LoadScene(file, o);
  MemoryRecorder recorder;
  RunInfo info;
  info.model = &scene.model;
  info.settings = &scene.settings;
  const RunResult result = Simulate(scene.model, scene.settings, info, recorder, {});
  REQUIRE(result.status == RunStatus::kCompleted);
  Measurement m;
  m.source = "memory";
  for (const Row& row : recorder.rows()) {
    m.time.push_back(row.time);
    m.q.push_back(row.q);
  }
  return m;
}

std::string Refusal(const Measurement& data, const TrajectoryFitOptions& options) {
  try {
    FitTrajectory(Factory(), data, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("the fit recovers the sliding box's friction from its own run", "[fit][sim]") {
  const Measurement data = Data({"settings.duration=0.15"});
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction"};
  options.overrides = {"materials.default.friction=0.35"};
  options.window_end = 0.15;
  const TrajectoryFitResult r = FitTrajectory(Factory(), data, options);
  INFO(fit::FitStatusName(r.lm.status) << ", " << r.lm.iterations << " iterations, mu = "
                                       << r.lm.p[0]);
  CHECK(r.start[0] == 0.35);
  CHECK((r.lm.status == fit::FitStatus::kConvergedStep ||
         r.lm.status == fit::FitStatus::kConvergedGradient));
  CHECK(r.lm.iterations <= 20);
  CHECK(std::abs(r.lm.p[0] / 0.5 - 1.0) < 1e-6);
  CHECK(r.statistics.verdict[0] == fit::ParameterVerdict::kIdentified);
  CHECK(r.num_samples == static_cast<int>(data.time.size()));
  CHECK(r.num_residuals == r.num_samples * 6);
  WARN("box fit: " << r.lm.iterations << " iterations, relative error "
                   << std::abs(r.lm.p[0] / 0.5 - 1.0));
  REQUIRE(r.SetLines().size() == 1);
  CHECK(r.SetLines()[0].rfind("--set materials.default.friction=0.", 0) == 0);
}

TEST_CASE("the fit recovers friction and dissipation time of a bouncing, sliding sphere",
          "[fit][sim]") {
  // falling_sphere.yaml under SAP: it falls 5 cm (0.1 s), bounces on the compliant ground
  // (k = 1e7 N/m, tau_d acts on the rebound) while sliding at 2 m/s, and slides until it
  // rolls at ~0.22 s; 0.2 s of it.
  const std::vector<std::string> scene{"settings.contact_model=sap", "settings.duration=0.2"};
  const Measurement data = Data(scene, kSphere);
  TrajectoryFitOptions options;
  options.parameters = {"materials.ground.friction", "materials.ground.dissipation_time"};
  options.overrides = scene;
  options.overrides.push_back("materials.ground.friction=0.35");
  options.overrides.push_back("materials.ground.dissipation_time=1.3e-3");
  const TrajectoryFitResult r = FitTrajectory(Factory(kSphere), data, options);
  INFO(fit::FitStatusName(r.lm.status) << ", " << r.lm.iterations << " iterations, p = "
                                       << r.lm.p.transpose());
  CHECK((r.lm.status == fit::FitStatus::kConvergedStep ||
         r.lm.status == fit::FitStatus::kConvergedGradient));
  CHECK(r.lm.iterations <= 20);
  CHECK(std::abs(r.lm.p[0] / 0.5 - 1.0) < 1e-6);
  CHECK(std::abs(r.lm.p[1] / 1e-3 - 1.0) < 1e-6);
  CHECK(r.statistics.unidentifiable.empty());
  WARN("sphere fit: " << r.lm.iterations << " iterations, relative errors "
                      << std::abs(r.lm.p[0] / 0.5 - 1.0) << ", "
                      << std::abs(r.lm.p[1] / 1e-3 - 1.0));
}

TEST_CASE("the fit refuses what the data cannot determine", "[fit][sim]") {
  SECTION("friction of a box that never slides") {
    const Measurement data =
        Data({"settings.duration=0.1", "bodies.box.velocity.linear=[0,0,0]"});
    TrajectoryFitOptions options;
    options.parameters = {"materials.default.friction"};
    options.overrides = {"bodies.box.velocity.linear=[0,0,0]"};
    const std::string message = Refusal(data, options);
    CHECK_THAT(message, Catch::Contains("--param: 'materials.default.friction' is not "
                                        "identifiable"));
  }
  SECTION("a start at 0 and an initial-state path") {
    const Measurement data = Data({"settings.duration=0.05"});
    TrajectoryFitOptions options;
    options.parameters = {"materials.default.dissipation_time"};
    CHECK_THAT(Refusal(data, options), Catch::Contains("needs a positive finite start"));
    options.parameters = {"joints.box.v[3]"};
    CHECK_THAT(Refusal(data, options), Catch::Contains("only material parameters"));
    options.parameters = {"materials.default.friction", "materials.default.friction"};
    CHECK_THAT(Refusal(data, options), Catch::Contains("given twice"));
  }
}

}  // namespace
}  // namespace csim::sim
