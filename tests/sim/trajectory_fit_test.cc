// The fitting driver of `csim fit` (engine/sim/trajectory_fit.h): a run of the sliding box
// at mu = 0.5 is its own data; the fit from mu = 0.35 (30 % off) recovers mu to 1e-6
// relative in at most 20 iterations, alone, with an initial velocity, within bounds around
// the truth, over an ensemble of runs started from different states, and with every run's
// initial state as nuisance parameters; bounded below the truth it ends on the bound; with
// Gaussian noise on the measured coordinates the standard errors cover the truth; observing
// one of two bodies; a parameter the data does not see, a start at 0, bad bounds and refused
// combinations of options give a message naming them, and a friction whose contacts only
// stick the lower bound they put on it.

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/common/input_error.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/configuration_tangent.h"
#include "engine/sim/memory_recorder.h"
#include "engine/sim/simulate.h"
#include "engine/sim/trajectory_fit.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_scenes.h"

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

// The run's joint coordinates (and, with_velocities, velocities) at every step, solved as
// tightly as the fit solves.
Measurement Data(const std::vector<std::string>& overrides, const std::string& file = kBox,
                 bool with_velocities = false) {
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
    if (with_velocities) m.v.push_back(row.v);
  }
  return m;
}

bool Converged(const TrajectoryFitResult& r) {
  return r.lm.status == fit::FitStatus::kConvergedStep ||
         r.lm.status == fit::FitStatus::kConvergedGradient;
}

// The index of parameter `path` of run `run` (-1: shared) in the result.
int Index(const TrajectoryFitResult& r, const std::string& path, int run = -1) {
  for (size_t j = 0; j < r.parameters.size(); ++j)
    if (r.parameters[j] == path && r.run[j] == run) return static_cast<int>(j);
  FAIL("no parameter " << path << " of run " << run);
  return -1;
}

std::string Refusal(const std::vector<Measurement>& data, const TrajectoryFitOptions& options,
                    const std::string& file = kBox) {
  try {
    FitTrajectory(Factory(file), data, options);
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

TEST_CASE("a fit whose optimum lies above an upper bound ends on the bound", "[fit][sim]") {
  // The box's friction is 0.5; bounded to at most 0.3 and started at 0.25, the cost falls
  // towards 0.5 all the way: the fit ends on the bound exactly, held there (no standard
  // error), while the initial velocity fitted with it stays free and identified.
  const Measurement data = Data({"settings.duration=0.15"});
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction", "joints.box.v[3]"};
  options.overrides = {"materials.default.friction=0.25", "bodies.box.velocity.linear=[0.9,0,0]"};
  options.bounds = {{"materials.default.friction", -INFINITY, 0.3}};
  const TrajectoryFitResult r = FitTrajectory(Factory(), data, options);
  INFO(fit::FitStatusName(r.lm.status) << ", " << r.lm.iterations << " iterations, p = "
                                       << r.lm.p.transpose());
  CHECK(Converged(r));
  CHECK(r.lm.iterations <= 20);
  CHECK(r.lm.p[0] == 0.3);
  REQUIRE(r.lm.bound_state.size() == 2);
  CHECK(r.lm.bound_state[0] == fit::BoundState::kAtUpper);
  CHECK(r.statistics.verdict[0] == fit::ParameterVerdict::kAtBound);
  CHECK(std::isnan(r.statistics.standard_error_p[0]));
  CHECK(r.statistics.verdict[1] == fit::ParameterVerdict::kIdentified);
  CHECK(std::isfinite(r.statistics.standard_error_p[1]));
  // Less friction decelerates less: the velocity that best matches it is below the truth.
  CHECK(r.lm.p[1] > 0.5);
  CHECK(r.lm.p[1] < 1.0);
  CHECK(r.lower_bound == std::vector<double>{-INFINITY, -INFINITY});
  CHECK(r.upper_bound == std::vector<double>{0.3, INFINITY});
}

TEST_CASE("a fit with bounds around the truth recovers it as without them", "[fit][sim]") {
  const Measurement data = Data({"settings.duration=0.15"});
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction"};
  options.overrides = {"materials.default.friction=0.35"};
  options.bounds = {{"materials.default.friction", 0.2, 0.8}};
  const TrajectoryFitResult r = FitTrajectory(Factory(), data, options);
  INFO(fit::FitStatusName(r.lm.status) << ", " << r.lm.iterations << " iterations, mu = "
                                       << r.lm.p[0]);
  CHECK(Converged(r));
  CHECK(r.lm.iterations <= 20);
  CHECK(std::abs(r.lm.p[0] / 0.5 - 1.0) < 1e-6);
  CHECK(r.lm.bound_state[0] == fit::BoundState::kFree);
  CHECK(r.statistics.verdict[0] == fit::ParameterVerdict::kIdentified);
  CHECK(r.lower_bound == std::vector<double>{0.2});
  CHECK(r.upper_bound == std::vector<double>{0.8});
}

TEST_CASE("the fit refuses bad bounds with a message naming the parameter", "[fit][sim]") {
  const Measurement data = Data({"settings.duration=0.05"});
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction", "joints.box.v[3]"};
  const std::string mu = "materials.default.friction";
  options.bounds = {{"materials.default.stiffness", 0.0, 1.0}};
  CHECK_THAT(Refusal({data}, options),
             Catch::Contains("--bound: 'materials.default.stiffness' is not among the "
                             "--param paths"));
  options.bounds = {{"joints.box.v[3]", 0.0, 1.0}};
  CHECK_THAT(Refusal({data}, options),
             Catch::Contains("--bound: 'joints.box.v[3]' is an initial-state parameter"));
  options.bounds = {{mu, 0.6, 0.6}};
  CHECK_THAT(Refusal({data}, options),
             Catch::Contains("--bound: '" + mu + "': the lower bound 0.6 is not below the "
                             "upper bound 0.6"));
  options.bounds = {{mu, -0.1, 1.0}};
  CHECK_THAT(Refusal({data}, options),
             Catch::Contains("--bound: '" + mu + "': the lower bound -0.1 is negative"));
  options.bounds = {{mu, 0.1, 1.0}, {mu, 0.2, 0.9}};
  CHECK_THAT(Refusal({data}, options),
             Catch::Contains("--bound: '" + mu + "' is bounded twice"));
  // The scene's 0.5 above the bounds: refused, not clamped.
  options.bounds = {{mu, 0.1, 0.4}};
  CHECK_THAT(Refusal({data}, options),
             Catch::Contains("--bound: '" + mu + "' starts at 0.5 (the scene's value after "
                             "--set), outside its bounds [0.1, 0.4]: the start contradicts "
                             "the bounds"));
  options.bounds = {{mu, 0.6, INFINITY}};
  CHECK_THAT(Refusal({data}, options), Catch::Contains("outside its bounds [0.6, inf)"));
  // A start on a bound is inside.
  options.parameters = {mu};
  options.bounds = {{mu, 0.5, INFINITY}};
  CHECK(Refusal({data}, options).empty());
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
    const std::string message = Refusal({data}, options);
    CHECK_THAT(message, Catch::Contains("--param: 'materials.default.friction' is not "
                                        "identifiable"));
  }
  SECTION("a start at 0, a repeated path, bad initial-state and observation requests") {
    const Measurement data = Data({"settings.duration=0.05"});
    TrajectoryFitOptions options;
    options.parameters = {"materials.default.dissipation_time"};
    CHECK_THAT(Refusal({data}, options), Catch::Contains("needs a positive finite start"));
    options.parameters = {"materials.default.friction", "materials.default.friction"};
    CHECK_THAT(Refusal({data}, options), Catch::Contains("given twice"));
    options.parameters = {"joints.box.v[6]"};
    CHECK_THAT(Refusal({data}, options), Catch::Contains("--param: 'joints.box.v[6]' is out of "
                                                         "range"));
    options.parameters = {"materials.default.friction"};
    // Two runs that would both start from the scene's state.
    CHECK_THAT(Refusal({data, data}, options),
               Catch::Contains("--initial-state: several --data files with --initial-state "
                               "scene"));
    // The initial state fitted from one sample: its velocity is not seen.
    Measurement one = data;
    one.time.resize(1);
    one.q.resize(1);
    options.fit_initial_state = true;
    CHECK_THAT(Refusal({one}, options), Catch::Contains("memory: --fit-initial-state needs at "
                                                        "least two measurement times"));
    options.fit_initial_state = false;
    options.observe = {"lid"};
    CHECK_THAT(Refusal({data}, options), Catch::Contains("--observe: 'lid' names no joint"));
    options.observe = {};
    options.sigma_angle = 0.0;
    CHECK_THAT(Refusal({data}, options), Catch::Contains("--sigma"));
  }
}

TEST_CASE("the fit recovers an initial velocity together with the friction", "[fit][sim]") {
  // Truth mu = 0.5, v0 = 1 m/s; the fit starts from the scene set to (0.35, 0.9 m/s), so
  // the initial velocity is a linear parameter starting 10 % off.
  const Measurement data = Data({"settings.duration=0.15"});
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction", "joints.box.v[3]"};
  options.overrides = {"materials.default.friction=0.35", "bodies.box.velocity.linear=[0.9,0,0]"};
  const TrajectoryFitResult r = FitTrajectory(Factory(), data, options);
  INFO(fit::FitStatusName(r.lm.status) << ", " << r.lm.iterations << " iterations, p = "
                                       << r.lm.p.transpose());
  CHECK(Converged(r));
  CHECK(r.lm.iterations <= 20);
  REQUIRE(r.parameters.size() == 2);
  CHECK(r.scale[0] == fit::ParameterScale::kLog);
  CHECK(r.scale[1] == fit::ParameterScale::kLinear);
  CHECK(r.start[1] == 0.9);
  CHECK(std::abs(r.lm.p[0] / 0.5 - 1.0) < 1e-6);
  CHECK(std::abs(r.lm.p[1] / 1.0 - 1.0) < 1e-6);
  CHECK(r.initial_v[0][3] == r.lm.p[1]);
  // Only the shared parameter has a --set line.
  CHECK(r.SetLines().size() == 1);
  WARN("box friction and v0 fit: " << r.lm.iterations << " iterations, relative errors "
                                   << std::abs(r.lm.p[0] / 0.5 - 1.0) << ", "
                                   << std::abs(r.lm.p[1] - 1.0));
}

TEST_CASE("an ensemble of runs from different initial states shares the friction",
          "[fit][sim]") {
  // Three runs of the box launched differently (one spinning); each run starts at its
  // data's first sample (recorded q and v), and the friction is fitted to all three.
  const std::vector<std::vector<std::string>> launches = {
      {"bodies.box.velocity.linear=[1,0,0]"},
      {"bodies.box.velocity.linear=[0.8,0.3,0]"},
      {"bodies.box.velocity.linear=[1.2,-0.2,0]", "bodies.box.velocity.angular=[0,0,2]"}};
  std::vector<Measurement> data;
  for (std::vector<std::string> launch : launches) {
    launch.push_back("settings.duration=0.15");
    data.push_back(Data(launch, kBox, true));
  }
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction"};
  options.overrides = {"materials.default.friction=0.35"};
  options.initial_state = InitialState::kData;
  const TrajectoryFitResult r = FitTrajectory(Factory(), data, options);
  INFO(fit::FitStatusName(r.lm.status) << ", " << r.lm.iterations << " iterations, mu = "
                                       << r.lm.p[0]);
  CHECK(Converged(r));
  CHECK(r.lm.iterations <= 20);
  CHECK(r.num_runs == 3);
  CHECK(r.num_residuals == 3 * 16 * 6);
  CHECK(std::abs(r.lm.p[0] / 0.5 - 1.0) < 1e-6);
  // Each run started from its own launch.
  CHECK(r.initial_v[1][3] == Approx(0.8).epsilon(1e-12));
  CHECK(r.initial_v[1][4] == Approx(0.3).epsilon(1e-12));
  CHECK(r.initial_v[2][2] == Approx(2.0).epsilon(1e-12));
  WARN("box ensemble fit (3 runs): " << r.lm.iterations << " iterations, relative error "
                                     << std::abs(r.lm.p[0] / 0.5 - 1.0));
}

TEST_CASE("csim fit with fit-initial-state recovers each run's initial velocity", "[fit][sim]") {
  // The sphere of falling_sphere.yaml under SAP, thrown two ways: each run's data has no
  // velocities (as a CSV), so each starts with v from the difference of its first two
  // samples, off by g dt = 0.02 m/s vertically; its initial q (tangent) and v (12
  // coordinates per run) are fitted with the shared friction. The sphere is in flight at
  // the start, so every initial coordinate shows smoothly in the motion (a box resting on
  // near-rigid contact would not: the contact absorbs its vertical and tilting velocities).
  const std::vector<std::vector<std::string>> throws = {
      {"bodies.sphere.velocity.linear=[2,0,0.5]"},
      {"bodies.sphere.velocity.linear=[1.5,0.5,0]", "bodies.sphere.velocity.angular=[0,0,3]"}};
  std::vector<Measurement> data;
  for (std::vector<std::string> launch : throws) {
    launch.push_back("settings.contact_model=sap");
    launch.push_back("settings.duration=0.2");
    data.push_back(Data(launch, kSphere));
  }
  TrajectoryFitOptions options;
  options.parameters = {"materials.ground.friction"};
  options.overrides = {"settings.contact_model=sap", "materials.ground.friction=0.35"};
  options.initial_state = InitialState::kData;
  options.fit_initial_state = true;
  const TrajectoryFitResult f = FitTrajectory(Factory(kSphere), data, options);
  INFO(fit::FitStatusName(f.lm.status) << ", " << f.lm.iterations << " iterations");
  CHECK(Converged(f));
  CHECK(f.lm.iterations <= 20);
  CHECK(f.parameters.size() == 1 + 2 * 12);
  CHECK(std::abs(f.lm.p[0] / 0.5 - 1.0) < 1e-6);
  const int vz0 = Index(f, "joints.sphere.v[5]", 0), vx0 = Index(f, "joints.sphere.v[3]", 0);
  const int vx1 = Index(f, "joints.sphere.v[3]", 1), vy1 = Index(f, "joints.sphere.v[4]", 1);
  const int wz1 = Index(f, "joints.sphere.v[2]", 1);
  CHECK(std::abs(f.start[vz0] - 0.5) > 1e-2);  // the difference is not the truth
  CHECK(std::abs(f.lm.p[vz0] / 0.5 - 1.0) < 1e-6);
  CHECK(std::abs(f.lm.p[vx0] / 2.0 - 1.0) < 1e-6);
  CHECK(std::abs(f.lm.p[vx1] / 1.5 - 1.0) < 1e-6);
  CHECK(std::abs(f.lm.p[vy1] / 0.5 - 1.0) < 1e-6);
  CHECK(std::abs(f.lm.p[wz1] / 3.0 - 1.0) < 1e-6);
  CHECK(f.initial_v[0][5] == f.lm.p[vz0]);
  CHECK(f.statistics.unidentifiable.empty());
  // The Jacobian is block sparse: a run's rows do not depend on the other's initial state.
  const int rows = static_cast<int>(f.lm.de_dp.rows()) / 2;
  CHECK(f.lm.de_dp.topRows(rows).col(vx1).isZero(0.0));
  CHECK(f.lm.de_dp.bottomRows(rows).col(vz0).isZero(0.0));
  WARN("sphere ensemble with initial states (2 runs, 25 parameters): " << f.lm.iterations
       << " iterations, relative errors mu " << std::abs(f.lm.p[0] / 0.5 - 1.0) << ", vz "
       << std::abs(f.lm.p[vz0] / 0.5 - 1.0) << " (start off by "
       << std::abs(f.start[vz0] - 0.5) << ")");
}

TEST_CASE("with noisy data the standard errors cover the truth in 95 of 100 seeds",
          "[fit][sim]") {
  // The sliding box over 0.15 s, mu = 0.5 and v0 = 1 m/s fitted from Gaussian noise of
  // sigma = 1 mm / 10 mrad on every tangent coordinate of every sample, residuals weighted
  // by 1/sigma: s^2 estimates 1 and the truth lies within 3 standard errors in ~99.7 %.
  const Measurement clean = Data({"settings.duration=0.15"});
  io::LoadedScene scene = io::LoadScene(kBox, {});
  const multibody::Model& model = scene.model;
  const double sigma_position = 1e-3, sigma_angle = 1e-2;
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction", "joints.box.v[3]"};
  options.sigma_position = sigma_position;
  options.sigma_angle = sigma_angle;
  int covered[2] = {0, 0};
  double s2_sum = 0.0;
  const auto begin = std::chrono::steady_clock::now();
  const int seeds = 100;
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Measurement noisy = clean;
    for (Eigen::VectorXd& q : noisy.q) {
      Eigen::VectorXd delta(model.nv);
      for (int k = 0; k < model.nv; ++k)
        delta[k] = normal(rng) * (k < 3 ? sigma_angle : sigma_position);
      Eigen::VectorXd out(model.nq);
      multibody::RetractConfiguration(model, q, delta, &out);
      q = out;
    }
    const TrajectoryFitResult r = FitTrajectory(Factory(), noisy, options);
    REQUIRE(Converged(r));
    REQUIRE(r.statistics.verdict[0] == fit::ParameterVerdict::kIdentified);
    covered[0] += std::abs(r.lm.p[0] - 0.5) <= 3.0 * r.statistics.standard_error_p[0];
    covered[1] += std::abs(r.lm.p[1] - 1.0) <= 3.0 * r.statistics.standard_error_p[1];
    s2_sum += r.statistics.s2;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  INFO("covered: mu " << covered[0] << ", v0 " << covered[1] << "; mean s^2 "
                      << s2_sum / seeds);
  CHECK(covered[0] >= 95);
  CHECK(covered[1] >= 95);
  CHECK(s2_sum / seeds == Approx(1.0).margin(0.1));
  WARN("box noisy coverage: truth within 3 se in " << covered[0] << " (mu) and " << covered[1]
       << " (v0) of " << seeds << " seeds, mean s^2 " << s2_sum / seeds << ", "
       << seconds << " s");
}

// A 1 kg box (10 cm) of material `box` (friction 0.5) resting on a floor of material
// `floor_material`, pushed along x by 1.962 N = 0.2 m g at the height of its bottom face (so
// that the push tilts nothing and each corner carries m g / 4 and a quarter of the push):
// it sticks, every contact with |gamma_t| / gamma_n = 0.2. 0.3 s of 10 ms steps. The
// near-rigid threshold 0.1 (the corners overlap the floor by ~2e-7 m) keeps the friction's
// points of action within that of the push's height and settles the landing within a step:
// at 1 the overlap, 1.6e-5 m, tilted the loads so that the lighter corners needed 3e-5 more
// than 0.2, and the first steps' landing 1.6 % more.
std::string PushedBoxScene(const std::string& floor_material) {
  return R"(csim: 1
name: pushed_box
settings:
  time_step: 0.01
  duration: 0.3
  near_rigid_threshold: 0.1
  integrator: symplectic_euler
  solver: {relative_tolerance: 1.0e-12}
materials:
  box: {stiffness: .inf, dissipation_time: 0.0, friction: 0.5}
  floor: {stiffness: .inf, dissipation_time: 0.0, friction: 0.3}
world:
  geometry:
    - {shape: halfspace, material: )" + floor_material + R"(}
bodies:
  - name: box
    mass: 1.0
    geometry:
      - {shape: box, size: [0.1, 0.1, 0.1], material: box}
    pose: {position: [0, 0, 0.05]}
loads:
  - {body: box, point: [0, 0, -0.05], force: [1.962, 0, 0]}
)";
}

// The number after "PATH >= " in a refusal; NaN when there is none.
double StatedBound(const std::string& message, const std::string& path) {
  const std::string key = path + " >= ";
  const size_t at = message.find(key);
  if (at == std::string::npos) return std::nan("");
  return std::stod(message.substr(at + key.size()));
}

// The refusal of a fit of material `material`'s friction, started at 0.35, to a run of the
// scene `yaml` (written into a temporary folder) at its own values.
std::string FrictionRefusal(const std::string& yaml, const std::string& material) {
  const csim::testing::TempDir dir("csim_trajectory_fit_");
  const std::string file = dir.File("scene.yaml");
  {
    std::ofstream out(file);
    out << yaml;
  }
  const Measurement data = Data({}, file);
  TrajectoryFitOptions options;
  const std::string path = "materials." + material + ".friction";
  options.parameters = {path};
  options.overrides = {path + "=0.35"};
  return Refusal({data}, options, file);
}

TEST_CASE("a refused friction of a box that only sticks states the bound its contacts imply",
          "[fit][sim]") {
  // The push over the load, r = F / (m g) = 0.2, is what the contacts need. Fitted from a
  // start of 0.35 (the truth 0.5): the refusal's bound, at the starting values, is r against
  // the box's own material and r mu_o / (2 mu_o - r) = 0.15 against a floor of friction
  // mu_o = 0.3 (the pair's friction 2 mu mu_o / (mu + mu_o) is then exactly r).
  const double r = 1.962 / 9.81;
  for (const std::string floor : {"box", "floor"}) {
    INFO("floor material " << floor);
    const std::string message = FrictionRefusal(PushedBoxScene(floor), "box");
    INFO(message);
    CHECK_THAT(message, Catch::Contains("'materials.box.friction' is not identifiable"));
    const double bound = StatedBound(message, "materials.box.friction");
    const double mu_o = 0.3;
    const double expected = floor == "box" ? r : r * mu_o / (2 * mu_o - r);
    CHECK(bound < 0.5);
    CHECK(std::abs(bound / expected - 1.0) < 1e-5);  // the message's six digits
    WARN("pushed box, floor " << floor << ": stated bound " << bound << ", expected "
                              << expected << ", relative difference "
                              << std::abs(bound / expected - 1.0));
  }
}

TEST_CASE("a refused friction of a ball that only rests says its contacts bound nothing",
          "[fit][sim]") {
  // A ball resting on the ground presses without any tangential impulse: |gamma_t| / gamma_n
  // is rounding, which the refusal must not state as a lower bound on the friction.
  const std::string message = FrictionRefusal(R"(csim: 1
name: resting_ball
settings: {time_step: 0.01, duration: 0.2, integrator: symplectic_euler}
materials:
  ball: {stiffness: 1.0e6, dissipation_time: 0.01, friction: 0.5}
world:
  geometry: [{shape: halfspace, material: ball}]
bodies:
  - {name: ball, mass: 1.0, geometry: [{shape: sphere, radius: 0.05, material: ball}],
     pose: {position: [0, 0, 0.04999]}}
)",
                                              "ball");
  INFO(message);
  CHECK_THAT(message, Catch::Contains("'materials.ball.friction' is not identifiable"));
  CHECK_THAT(message, Catch::Contains("its contacts carry no friction impulse in the window"));
  CHECK(std::isnan(StatedBound(message, "materials.ball.friction")));
}

TEST_CASE("csim fit observe: only the observed joints enter the residuals", "[fit][sim]") {
  const std::string file =
      (std::filesystem::temp_directory_path() / "csim_trajectory_fit_two_boxes.yaml").string();
  {
    std::ofstream out(file);
    out << csim::testing::TwoBoxesOnTheGroundScene();
  }
  const Measurement data = Data({}, file);
  TrajectoryFitOptions options;
  options.parameters = {"materials.default.friction"};
  options.overrides = {"materials.default.friction=0.35"};
  SECTION("the sliding box recovers the friction") {
    options.observe = {"a"};
    const TrajectoryFitResult r = FitTrajectory(Factory(file), data, options);
    CHECK(Converged(r));
    CHECK(r.observed_coordinates == 6);
    CHECK(r.num_residuals == r.num_samples * 6);
    CHECK(std::abs(r.lm.p[0] / 0.5 - 1.0) < 1e-6);
  }
  SECTION("the box at rest does not see it") {
    options.observe = {"b"};
    CHECK_THAT(Refusal({data}, options, file),
               Catch::Contains("'materials.default.friction' is not identifiable"));
  }
  SECTION("an observed joint the data does not give is refused") {
    Measurement partial = data;
    partial.joints = {"a"};
    options.observe = {"a", "b"};
    CHECK_THAT(Refusal({partial}, options, file),
               Catch::Contains("--observe: joint 'b' is observed but memory gives no "
                               "coordinates for it"));
  }
  std::filesystem::remove(file);
}

TEST_CASE("a rotation offset of the initial orientation is fitted through the rotation's "
          "Jacobian", "[fit][sim]") {
  // The sphere in flight for 0.04 s, spinning, its initial orientation rotated by about
  // 0.9 rad; the fit starts from the identity (the scene's) and fits the offset q[0..2].
  // q0 = Exp(delta) (x) q_ref with q_ref = 1, so the truth is delta = Log(q_true), and at
  // t = 0 the residual is Log(Exp(delta) q_true^-1): its derivative is the rotation's left
  // Jacobian J_l(delta), far from I at this angle. The fitted Jacobian's first block must be
  // it, computed here by differences of quaternion products.
  const std::vector<std::string> spin = {"settings.duration=0.04",
                                         "bodies.sphere.velocity.angular=[1,2,3]"};
  std::vector<std::string> rotated = spin;
  rotated.push_back("bodies.sphere.pose.rpy=[0.5,-0.4,0.6]");
  const Measurement data = Data(rotated, kSphere);
  TrajectoryFitOptions options;
  options.parameters = {"joints.sphere.q[0]", "joints.sphere.q[1]", "joints.sphere.q[2]"};
  options.overrides = spin;
  const TrajectoryFitResult r = FitTrajectory(Factory(kSphere), data, options);
  INFO(fit::FitStatusName(r.lm.status) << ", " << r.lm.iterations << " iterations, delta = "
                                       << r.lm.p.transpose());
  CHECK(Converged(r));
  CHECK(r.lm.iterations <= 10);
  const Eigen::Vector4d q_true = data.q[0].head<4>();
  const Eigen::Vector3d truth = multibody::QuaternionLog(q_true);
  REQUIRE(truth.norm() > 0.8);
  CHECK((r.lm.p - truth).norm() < 1e-9);
  auto quaternion = [](const Eigen::Vector4d& wxyz) {
    return Eigen::Quaterniond(wxyz[0], wxyz[1], wxyz[2], wxyz[3]);
  };
  Eigen::Matrix3d J;
  const double h = 1e-6;
  for (int k = 0; k < 3; ++k) {
    Eigen::Vector3d dp = truth, dm = truth;
    dp[k] += h;
    dm[k] -= h;
    const Eigen::Quaterniond base = quaternion(multibody::QuaternionExp(truth)).conjugate();
    const Eigen::Quaterniond qp = quaternion(multibody::QuaternionExp(dp)) * base;
    const Eigen::Quaterniond qm = quaternion(multibody::QuaternionExp(dm)) * base;
    J.col(k) = (multibody::QuaternionLog(Eigen::Vector4d(qp.w(), qp.x(), qp.y(), qp.z())) -
                multibody::QuaternionLog(Eigen::Vector4d(qm.w(), qm.x(), qm.y(), qm.z()))) /
               (2 * h);
  }
  INFO("J_l by differences\n" << J << "\nfitted Jacobian\n" << r.lm.de_dp.topRows(3));
  CHECK((J - Eigen::Matrix3d::Identity()).norm() > 0.1);
  CHECK((r.lm.de_dp.topRows(3) - J).norm() < 1e-8);
  WARN("sphere orientation offset fit: " << r.lm.iterations << " iterations, |delta| "
       << truth.norm() << " rad, error " << (r.lm.p - truth).norm() << ", Jacobian error "
       << (r.lm.de_dp.topRows(3) - J).norm());
}

}  // namespace
}  // namespace csim::sim
