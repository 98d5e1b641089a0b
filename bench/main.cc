// csim_bench: the SAP paper's clutter benchmark. For every configuration (objects, walls,
// dt) it generates the scene with tools/make_clutter.py, loads it with csim's loader, and
// steps csim (and MuJoCo, when compiled in) for the scene's duration, the two simulators
// alternating step by step so that machine load affects both alike. See bench/README.md.

#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <vector>

#include "bench/bench_options.h"
#include "bench/clutter_scene.h"
#include "bench/csim_runner.h"
#include "bench/paired_solve.h"
#include "bench/report.h"
#include "engine/io/scene_loader.h"
#include "engine/sim/simulate.h"

#ifdef CSIM_BENCH_HAVE_MUJOCO
#include "bench/mjcf_writer.h"
#include "bench/mujoco_runner.h"
#endif

namespace csim::bench {
namespace {

// MuJoCo's side of one configuration; a no-op without MuJoCo.
class MujocoSide {
 public:
  MujocoSide(const BenchOptions& o, const io::LoadedScene& scene, bool print_settings) {
#ifdef CSIM_BENCH_HAVE_MUJOCO
    if (!o.mujoco) return;
    const MjcfOptions mjcf_options;
    try {
      runner_ = std::make_unique<MujocoRunner>(WriteMjcf(scene.model, scene.settings, mjcf_options));
    } catch (const std::exception& e) {  // csim's figures are still worth having
      std::printf("MuJoCo: not run on this configuration: %s\n", e.what());
      return;
    }
    model_ = &scene.model;
    dt_ = scene.settings.time_step;
    budget_ = o.mujoco_budget;
    if (print_settings) std::printf("%s\n", MujocoSettingsLine(scene.settings, mjcf_options).c_str());
#else
    (void)o, (void)scene;
    if (print_settings) std::printf("MuJoCo: not compiled in (install libmujoco-dev)\n");
#endif
  }

  bool active() const { return active_ && enabled(); }
  bool enabled() const {
#ifdef CSIM_BENCH_HAVE_MUJOCO
    return runner_ != nullptr;
#else
    return false;
#endif
  }

  // One step unless the budget is spent or MuJoCo reported a problem.
  void Step() {
#ifdef CSIM_BENCH_HAVE_MUJOCO
    StepSample s;
    const multibody::Model& model = *model_;
    const double dt = dt_;
    if (!runner_->Step(&s, [&model, dt](double t0, double* ctrl) { ControlsAt(model, t0, dt, ctrl); })) {
      note_ = "stopped after " + std::to_string(samples_.size()) +
              " steps: MuJoCo warning (buffer full or bad state)";
      active_ = false;
      return;
    }
    samples_.push_back(s);
    spent_ += s.seconds;
    if (budget_ > 0 && spent_ > budget_) {
      note_ = "stopped after " + std::to_string(samples_.size()) + " steps: wall-time budget of " +
              std::to_string(budget_) + " s spent";
      active_ = false;
    }
#endif
  }

  const std::vector<StepSample>& samples() const { return samples_; }
  const std::string& note() const { return note_; }

 private:
#ifdef CSIM_BENCH_HAVE_MUJOCO
  std::unique_ptr<MujocoRunner> runner_;
  const multibody::Model* model_ = nullptr;
  double dt_ = 0.0;
#endif
  bool active_ = true;
  double budget_ = 0.0, spent_ = 0.0;
  std::vector<StepSample> samples_;
  std::string note_;
};

// One csim run of `steps` steps from the scene's initial state, MuJoCo stepping alternately
// when `mujoco` is active. Stops at a failed step (r->csim_failed and r->csim_error set).
// With `paired`, every step's contact problem is also solved by both of its settings
// (after the step, outside its timed part).
std::vector<StepSample> RunCsim(const BenchOptions& o, const io::LoadedScene& scene, int steps,
                                bool print_settings, MujocoSide* mujoco, PairedSolve* paired,
                                ConfigResult* r) {
  CsimRunner csim(scene, o.threads, o.stage_times);
  if (print_settings)
    std::printf("%s; %d thread%s\n", csim.SettingsLine().c_str(), o.threads,
                o.threads == 1 ? "" : "s (islands of the contact solve in parallel)");
  std::vector<StepSample> samples;
  samples.reserve(steps);
  for (int i = 0; i < steps; ++i) {
    StepSample s;
    if (!csim.Step(&s)) {
      r->csim_failed = true;
      r->csim_error = csim.error();
      break;
    }
    samples.push_back(s);
    if (paired != nullptr) {
      const integrator::ContactStepWorkspace& w = csim.workspace();
      paired->Compare(w.problem, w.warm_start.guess, w.result, i % 2 == 1);
    }
    if (mujoco != nullptr && mujoco->active()) mujoco->Step();
  }
  return samples;
}

// Keeps, of two summaries of the same window, the one with the lower mean time per step.
void KeepFaster(const SeriesSummary& candidate, SeriesSummary* best) {
  if (candidate.mean_seconds < best->mean_seconds) *best = candidate;
}

// One configuration's first run (with MuJoCo alternating when enabled). Its scene is kept in
// *scene_out for the repeats (RepeatCsim).
ConfigResult RunConfig(const BenchOptions& o, const ClutterConfig& c, bool first,
                       std::unique_ptr<io::LoadedScene>* scene_out) {
  ConfigResult r;
  r.config = c;
  r.dt = c.dt;
  const bool from_file = !c.scene.empty();
  // --compare: the same scene with the compared solver settings on top (only the solver
  // parameters of that copy are used).
  std::vector<std::string> compared_overrides = o.overrides;
  compared_overrides.insert(compared_overrides.end(), o.compare.begin(), o.compare.end());
  std::unique_ptr<PairedSolve> paired;
  // `load` reads the scene with compared_overrides; its errors name the override as
  // "--set KEY=VALUE" (the loader's one syntax), so they are prefixed with --compare.
  auto make_paired = [&](auto load) {
    if (o.compare.empty()) return;
    solver::SapSolverParameters b;
    try {
      b = load().settings.solver;
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("--compare: ") + e.what());
    }
    paired = std::make_unique<PairedSolve>((*scene_out)->settings.solver, b,
                                           o.threads);
  };
  if (from_file) {
    r.scene_command = "scene " + c.scene;
    *scene_out = std::make_unique<io::LoadedScene>(io::LoadScene(c.scene, o.overrides));
    make_paired([&] { return io::LoadScene(c.scene, compared_overrides); });
  } else {
    const std::string text = GenerateClutterScene(o, c, &r.scene_command);
    *scene_out = std::make_unique<io::LoadedScene>(
        io::LoadSceneFromText(text, "clutter.yaml", o.overrides));
    make_paired([&] { return io::LoadSceneFromText(text, "clutter.yaml", compared_overrides); });
  }
  for (const std::string& s : o.compare) r.compared += (r.compared.empty() ? "" : " ") + s;
  const io::LoadedScene& scene = **scene_out;
  for (const std::string& s : o.overrides) r.scene_command += " --set " + s;  // in the report
  if (from_file) {  // the scene's own step; its bodies count as the objects
    r.dt = r.config.dt = scene.settings.time_step;
    r.config.objects = scene.model.num_bodies();
    r.config.walls = false;
  }
  r.relative_tolerance = scene.settings.solver.relative_tolerance;
  MujocoSide mujoco(o, scene, first);
  const int steps = static_cast<int>(std::ceil(o.duration / r.dt - 1e-9));
  std::vector<StepSample> samples = RunCsim(o, scene, steps, first, &mujoco, paired.get(), &r);
  if (paired != nullptr) r.paired = paired->summary();
  r.steps = static_cast<int>(samples.size());
  r.settled_first = std::max(0, steps - static_cast<int>(std::lround(o.settled / r.dt)));
  r.last_second_first = std::max(0, steps - static_cast<int>(std::lround(1.0 / r.dt)));
  r.csim_all = Summarize(samples, 0, r.steps);
  r.csim_settled = Summarize(samples, r.settled_first, r.steps);
  r.csim_last_second = Summarize(samples, r.last_second_first, r.steps);
  r.repeats = 1;
  if (mujoco.enabled()) {
    const std::vector<StepSample>& m = mujoco.samples();
    r.has_mujoco = true;
    r.mujoco_steps = static_cast<int>(m.size());
    r.mujoco_note = mujoco.note();
    r.mujoco_all = Summarize(m, 0, r.mujoco_steps);
    r.mujoco_settled = Summarize(m, r.settled_first, r.mujoco_steps);
    r.mujoco_last_second = Summarize(m, r.last_second_first, r.mujoco_steps);
    r.csim_common = Summarize(samples, 0, std::min(r.steps, r.mujoco_steps));
  }
  return r;
}

// One more csim run of a configuration (csim only): the same simulation, so only its times
// can differ; each window keeps the faster of its summaries.
void RepeatCsim(const BenchOptions& o, const io::LoadedScene& scene, ConfigResult* r) {
  if (r->csim_failed) return;
  const std::vector<StepSample> samples = RunCsim(o, scene, r->steps, false, nullptr, nullptr, r);
  const int n = static_cast<int>(samples.size());
  if (r->csim_failed || n != r->steps) return;
  KeepFaster(Summarize(samples, 0, n), &r->csim_all);
  KeepFaster(Summarize(samples, r->settled_first, n), &r->csim_settled);
  KeepFaster(Summarize(samples, r->last_second_first, n), &r->csim_last_second);
  ++r->repeats;
}

int Main(int argc, char** argv) {
  const BenchOptions o = ParseOptions(argc, argv);
  std::vector<ConfigResult> results;
  std::vector<std::unique_ptr<io::LoadedScene>> scenes;
  bool first = true;
  for (const ClutterConfig& c : o.Configurations()) {
    scenes.emplace_back();
    results.push_back(RunConfig(o, c, first, &scenes.back()));
    first = false;
    if (o.repeat == 1) PrintConfig(results.back(), stdout);
  }
  // Repeats go round the configurations, not one configuration R times in a row: a slow
  // phase of the machine then hits every configuration alike instead of biasing one of
  // them (and a growth fit through them).
  for (int k = 1; k < o.repeat; ++k)
    for (size_t j = 0; j < results.size(); ++j) RepeatCsim(o, *scenes[j], &results[j]);
  if (o.repeat > 1)
    for (const ConfigResult& r : results) PrintConfig(r, stdout);
  PrintSummary(results, stdout);
  if (!o.csv.empty()) WriteCsv(results, o.csv);
  for (const ConfigResult& r : results)
    if (r.csim_failed) return 3;
  return 0;
}

}  // namespace
}  // namespace csim::bench

int main(int argc, char** argv) {
  try {
    return csim::bench::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csim_bench: %s\n", e.what());
    return 1;
  }
}
