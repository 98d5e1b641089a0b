// csim_sensitivity_bench: the cost of forward sensitivities (`csim run --sensitivities`,
// integrator::TrajectorySensitivity) against a plain run, for n_p = 1, 2, 4, 8 columns on
// the bouncing balls, the spring-cylinder and clutter-40 (bench/README.md,
// tools/sensitivity_cost.py, results/sensitivity_cost.md).
//
// Each configuration (a scene and a number of columns, 0 for the plain run) is the step
// loop of sim::Simulate without its recorder: StepWithContact and, with columns,
// TrajectorySensitivity::Advance after every completed step, both timed apart. The rows
// Simulate fills and writes are left out, so the figures are the dynamics' and the
// sensitivities' cost, not the output's. The configurations of a scene run in rounds (plain,
// 1, 2, 4, 8, then again), so a slow phase of the machine does not fall on one of them, and
// each reports its fastest round (load only adds time) and, in the CSV, its median.
//
// The split of Advance is estimated from outside, without touching the engine. Advance takes
// one of two rules a step (docs/design/sensitivities.md §6.2-§6.3): the general rule
// differences the whole assembly of the step's problem, 2 m assemblies (BuildStepProblem at
// x0 +- h D) a step, m the columns with a state direction, plus two per retry at a smaller h
// when a perturbed assembly changes the contact set or a contact's piece at the fixed v; the
// nominal problem is the step's own (integrator::SolvedStep), not rebuilt. The pairwise rule
// (lone free bodies under theta = 0: the bouncing balls, clutter-40) makes no assembly: the
// free motion's partials in closed form and the contacts' terms by the chain rule. The
// chain counts the steps that took the pairwise rule (steps_pairwise()). A separate "probe"
// run per round steps the plain scene and, after each step and outside its timed part, times
// one more BuildStepProblem at the step's start state in a workspace of its own: the unit of
// the general rule's work. The estimated assemblies are 2 m of them on each general-rule
// step, per step of the run (2 m x one assembly x (1 - the pairwise share) when m is the
// same on both rules' steps), and Advance minus them is the rest: the H factorization and
// solves, the contact parameter derivatives, the position derivatives, the retries and, on
// pairwise steps, the whole of the rule. The columns whose retries all failed (one-sided or
// unmatched) are counted from the chain's flags; retries that succeeded are not visible from
// outside (a profile shows them: tools/sensitivity_cost.py --profile).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/integrator/contact_step.h"
#include "engine/integrator/trajectory_sensitivity.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/position_update.h"
#include "engine/sim/sensitivity_paths.h"
#include "engine/sim/simulate.h"

namespace csim::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

struct Options {
  std::vector<std::string> scenes;
  double duration = 0.0;  // > 0: settings.duration of every scene
  std::vector<int> columns{1, 2, 4, 8};
  int repeat = 5;           // rounds at least
  double min_time = 2.0;    // and at least this much wall time per scene [s]
  std::vector<std::string> overrides;
  std::string csv;
  bool quick = false;
  int threads = 1;  // Settings::threads: the contact solve's islands and the columns
};

// The columns of a scene, in the order the configurations take them (n_p = the first n_p).
// The three scenes of the benchmark get columns that act there: material parameters of the
// contact model the scene uses, on materials whose combination moves with them (a rigid
// material's dissipation does not reach the pair: its column would stay zero and cost no
// assembly), then initial-state coordinates (a free body's joint is named after the body;
// its coordinates are [angular; linear]), which have a state direction from the first step.
std::vector<std::string> ColumnsFor(const io::LoadedScene& scene) {
  if (scene.name == "bouncing_balls")  // lagged Hunt & Crossley, frictionless
    return {"materials.lively.hunt_crossley", "materials.dead.hunt_crossley",
            "materials.elastic.hunt_crossley", "joints.lively.q[5]", "joints.dead.v[5]",
            "joints.elastic.q[5]", "joints.lively.v[3]", "joints.dead.q[3]"};
  // SAP; the ground is rigid, its tau_d does not act. The cylinder rolls without slipping:
  // the friction columns stay zero (a stuck contact's impulse does not depend on mu) and
  // assemble nothing, so the dissipation comes first.
  if (scene.name == "spring_cylinder")
    return {"materials.default.dissipation_time", "materials.default.friction",
            "materials.ground.friction", "joints.plane.q[0]", "joints.plane.v[0]",
            "joints.plane.q[1]", "joints.plane.q[2]", "joints.plane.v[2]"};
  if (scene.name == "clutter_40")  // SAP; the container is rigid, its tau_d does not act
    return {"materials.object.friction", "materials.container.friction",
            "materials.object.dissipation_time", "joints.box_000.q[5]", "joints.sphere_001.v[3]",
            "joints.box_004.q[0]", "joints.sphere_002.v[4]", "joints.box_005.q[2]"};
  // Any other scene: each compliant material's parameters of the scene's contact model,
  // then the joints' initial coordinates, q[i] and v[i] in turn.
  std::vector<std::string> out;
  const bool hunt_crossley = scene.settings.contact_model != contact::ContactModel::kSap;
  for (const geometry::Material& m : scene.model.materials) {
    out.push_back("materials." + m.name + ".friction");
    if (std::isfinite(m.stiffness))
      out.push_back("materials." + m.name + (hunt_crossley ? ".hunt_crossley" : ".dissipation_time"));
  }
  for (const multibody::Joint& j : scene.model.joints)
    for (int i = 0; j.v_start >= 0 && i < j.nv; ++i) {
      out.push_back("joints." + j.name + ".q[" + std::to_string(i) + "]");
      out.push_back("joints." + j.name + ".v[" + std::to_string(i) + "]");
    }
  return out;
}

// The calls of sim::Simulate's loop (simulate.cc): its step settings and workspaces.
struct Stepper {
  explicit Stepper(const io::LoadedScene& scene)
      : model(scene.model),
        theta{scene.settings.integrator.theta, scene.settings.integrator.theta_q,
              scene.settings.gyroscopic},
        contact(sim::ContactParametersFor(scene.settings)),
        dt(scene.settings.time_step),
        report_contacts(scene.settings.output.contacts),
        ws(integrator::MakeStepWorkspace(scene.model, scene.settings.tree_solver)),
        cws(scene.model),
        state{0.0, scene.model.InitialQ(), scene.model.InitialV()} {
    multibody::NormalizeQuaternions(model, &state.q);
    cws.solver.set_parameters(scene.settings.solver);
    cws.solver.set_num_threads(scene.settings.threads);
    cws.solver.set_condition_estimate(scene.settings.output.condition_number);
  }
  const multibody::Model& model;
  integrator::ThetaParameters theta;
  integrator::FreeMotionSettings free_motion;
  contact::ContactParameters contact;
  double dt;
  bool report_contacts;
  integrator::StepWorkspace ws;
  integrator::ContactStepWorkspace cws;
  multibody::State state;
};

// One run of one configuration.
struct RunTimes {
  double step = 0.0;      // StepWithContact, summed [s]
  double advance = 0.0;   // TrajectorySensitivity::Advance, summed [s]
  double assembly = 0.0;  // probe: one BuildStepProblem per step, summed [s]
  double direction_columns = 0.0;  // columns with a nonzero state direction, summed over steps
  // The same on the steps that took the general rule (whole assemblies, 2 per such column).
  double assembling_columns = 0.0;
  long pairwise_steps = 0;  // steps that took the pairwise rule (no assembly)
  // Columns left one-sided or unmatched (their differences changed the contact set or a
  // contact's piece at every h tried); summed over the steps.
  double flagged_columns = 0.0;
  long steps = 0;
  std::string error;
};

// Runs the scene for its duration with `paths` as columns (none: plain). With `probe`, times
// one extra assembly at each step's start state (a plain run; its step times are not used).
RunTimes RunOnce(const io::LoadedScene& scene, const std::vector<std::string>& paths, bool probe) {
  RunTimes r;
  Stepper s(scene);
  std::unique_ptr<integrator::TrajectorySensitivity> chain;
  if (!paths.empty()) {
    chain = std::make_unique<integrator::TrajectorySensitivity>(
        scene.model, sim::ParseSensitivityPaths(scene.model, paths), scene.settings.tree_solver,
        scene.settings.threads);
    chain->Reset();
  }
  std::unique_ptr<integrator::StepWorkspace> probe_ws;
  std::unique_ptr<integrator::ContactStepWorkspace> probe_cws;
  if (probe) {
    probe_ws = std::make_unique<integrator::StepWorkspace>(
        integrator::MakeStepWorkspace(scene.model, scene.settings.tree_solver));
    probe_cws = std::make_unique<integrator::ContactStepWorkspace>(scene.model);
  }
  const long total = sim::StepCount(scene.settings);
  multibody::State state0;
  for (long step = 0; step < total; ++step) {
    if (chain || probe) state0 = s.state;
    const auto t0 = Clock::now();
    const StepStatus status = integrator::StepWithContact(s.model, s.theta, s.free_motion,
                                                          s.contact, s.dt, s.report_contacts,
                                                          s.state, s.ws, s.cws);
    const auto t1 = Clock::now();
    r.step += Seconds(t0, t1);
    if (!status.ok()) {
      r.error = "step " + std::to_string(step + 1) + ": " + status.reason;
      return r;
    }
    s.state.t = (step + 1) * s.dt;
    if (chain) {
      // The columns' state directions at the step's start: a column with none (a material
      // column before its first contact) makes no difference of its own.
      int directions = 0;
      for (int j = 0; j < chain->dq().cols(); ++j)
        directions += chain->dq().col(j).any() || chain->dv().col(j).any();
      r.direction_columns += directions;
      const int pairwise_before = chain->steps_pairwise();
      const auto a0 = Clock::now();
      // The step's own workspaces, as Simulate passes them.
      const integrator::SolvedStep solved{s.ws, s.cws};
      const StepStatus chained = chain->Advance(s.model, s.theta, s.free_motion, s.contact,
                                                s.dt, state0, s.state, nullptr, &solved);
      r.advance += Seconds(a0, Clock::now());
      if (!chained.ok()) {
        r.error = "step " + std::to_string(step + 1) + ": sensitivities: " + chained.reason;
        return r;
      }
      r.flagged_columns += chain->last_step().num_one_sided + chain->last_step().num_unmatched;
      if (chain->steps_pairwise() > pairwise_before)
        ++r.pairwise_steps;
      else
        r.assembling_columns += directions;
    }
    if (probe) {
      const auto b0 = Clock::now();
      const StepStatus built = integrator::BuildStepProblem(
          s.model, s.theta, s.free_motion, s.contact, s.dt, state0, *probe_ws, *probe_cws);
      r.assembly += Seconds(b0, Clock::now());
      if (!built.ok()) {
        r.error = "step " + std::to_string(step + 1) + ": probe assembly: " + built.reason;
        return r;
      }
    }
    ++r.steps;
  }
  return r;
}

double Median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  return n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// One configuration's rounds.
struct Series {
  int n_p = 0;
  std::vector<std::string> paths;
  std::vector<RunTimes> runs;
  // The round with the least time (step + Advance): the machine's load only adds time, so
  // the fastest round is the least disturbed one.
  const RunTimes& Best() const {
    return *std::min_element(runs.begin(), runs.end(), [](const RunTimes& a, const RunTimes& b) {
      return a.step + a.advance < b.step + b.advance;
    });
  }
  double MedianTotal() const {
    std::vector<double> t;
    for (const RunTimes& r : runs) t.push_back(r.step + r.advance);
    return Median(t);
  }
};

int RunScene(const Options& o, const std::string& file, std::FILE* csv) {
  std::vector<std::string> overrides = o.overrides;
  if (o.duration > 0) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "settings.duration=%.17g", o.duration);
    overrides.push_back(buffer);
  }
  io::LoadedScene scene = io::LoadScene(file, overrides);
  scene.settings.threads = o.threads;  // as `csim run --threads`
  const std::vector<std::string> all = ColumnsFor(scene);
  const long steps = sim::StepCount(scene.settings);
  std::printf("\n## %s (%s): %ld steps of %g s, %s contact model, nv %d, %zu bodies, "
              "%d thread(s)\n",
              scene.name.c_str(), file.c_str(), steps, scene.settings.time_step,
              sim::ContactModelName(scene.settings.contact_model), scene.model.nv,
              scene.model.bodies.size(), scene.settings.threads);
  std::vector<Series> series;
  series.push_back({});  // plain
  for (int n : o.columns) {
    if (n > static_cast<int>(all.size())) {
      std::printf("n_p = %d: the scene has %zu columns; skipped\n", n, all.size());
      continue;
    }
    Series c;
    c.n_p = n;
    c.paths.assign(all.begin(), all.begin() + n);
    series.push_back(c);
  }
  Series probe;
  const auto start = Clock::now();
  for (int round = 0; round < o.repeat || Seconds(start, Clock::now()) < o.min_time; ++round) {
    for (Series& c : series) {
      RunTimes r = RunOnce(scene, c.paths, false);
      if (!r.error.empty()) {
        std::printf("error (n_p = %d): %s\n", c.n_p, r.error.c_str());
        return 3;
      }
      c.runs.push_back(r);
    }
    RunTimes p = RunOnce(scene, {}, true);
    if (!p.error.empty()) {
      std::printf("error (probe): %s\n", p.error.c_str());
      return 3;
    }
    probe.runs.push_back(p);
    if (round + 1 >= 1000) break;  // --min-time on a scene of microseconds: enough rounds
  }
  const double us = 1e6 / static_cast<double>(steps);
  const double plain = series[0].Best().step;
  double assembly = INFINITY;
  for (const RunTimes& r : probe.runs) assembly = std::min(assembly, r.assembly);
  std::printf("%zu rounds (the fastest reported; the median in the CSV); one assembly "
              "(BuildStepProblem at the step's start state): %.2f us a step, %.2f of a plain "
              "step\n",
              series[0].runs.size(), assembly * us, assembly / plain);
  for (const Series& c : series)
    if (c.n_p > 0) {
      std::printf("n_p = %d:", c.n_p);
      for (const std::string& p : c.paths) std::printf(" %s", p.c_str());
      std::printf("\n");
    }
  std::printf("\n| n_p | time/step [us] | ratio to plain | step [us] | Advance [us] | "
              "Advance/column [us] | pairwise steps | columns with a direction/step | "
              "flagged/step | est. assemblies [us] | rest of Advance [us] |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Series& c : series) {
    const RunTimes& best = c.Best();
    const double total = best.step + best.advance, step = best.step, advance = best.advance;
    // The counts are the same in every round (the same steps); the first round's.
    const RunTimes& first = c.runs[0];
    const double direction = first.direction_columns / static_cast<double>(steps);
    const double flagged = first.flagged_columns / static_cast<double>(steps);
    const double pairwise = first.pairwise_steps / static_cast<double>(steps);
    // 2 assemblies per column with a direction on each general-rule step.
    const double assemblies = 2 * first.assembling_columns / static_cast<double>(steps) * assembly;
    if (c.n_p == 0) {
      std::printf("| 0 (plain) | %.2f | 1.00 | %.2f | - | - | - | - | - | - | - |\n",
                  total * us, step * us);
    } else {
      std::printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | %.2f |\n",
                  c.n_p, total * us, total / plain, step * us, advance * us,
                  advance * us / c.n_p, pairwise, direction, flagged, assemblies * us,
                  (advance - assemblies) * us);
    }
    if (csv != nullptr)
      std::fprintf(csv, "%s,%ld,%g,%d,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n",
                   scene.name.c_str(), steps, scene.settings.time_step, c.n_p, c.runs.size(),
                   total * us, c.MedianTotal() * us, total / plain, step * us, advance * us,
                   c.n_p > 0 ? pairwise : 0.0, c.n_p > 0 ? direction : 0.0,
                   c.n_p > 0 ? flagged : 0.0, assembly * us, assemblies * us,
                   [&] {
                     std::string s;
                     for (const std::string& p : c.paths) s += (s.empty() ? "" : " ") + p;
                     return s;
                   }()
                       .c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace csim::bench

int main(int argc, char** argv) {
  using namespace csim::bench;
  Options o;
  CLI::App app{"csim_sensitivity_bench: the cost of forward sensitivities against a plain run "
               "(bench/README.md)"};
  app.add_option("--scene", o.scenes, "scene files (default: the bouncing balls, the "
                                      "spring-cylinder and clutter-40)");
  app.add_option("--duration", o.duration, "simulated time of every scene [s] (default: each "
                                           "scene's own)")
      ->check(CLI::PositiveNumber);
  app.add_option("--columns", o.columns, "numbers of sensitivity columns (default 1 2 4 8)")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  app.add_option("--repeat", o.repeat, "rounds at least (default 5)")->check(CLI::Range(1, 1000));
  app.add_option("--min-time", o.min_time,
                 "and rounds until a scene has run this long [s] (default 2)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--set", o.overrides, "KEY=VALUE override of every scene, as csim --set");
  app.add_option("--csv", o.csv, "one row per scene and n_p");
  app.add_flag("--quick", o.quick, "smoke run: 0.3 s of each scene, one round");
  app.add_option("--threads", o.threads,
                 "threads, as csim run --threads: the contact solve's islands and the "
                 "sensitivity columns' differences (default 1)")
      ->check(CLI::Range(1, 256));
  CLI11_PARSE(app, argc, argv);
  if (o.scenes.empty())
    for (const char* s : {"bouncing_balls", "spring_cylinder", "clutter_40"})
      o.scenes.push_back(std::string(CSIM_SOURCE_DIR) + "/scenes/" + s + ".yaml");
  if (o.quick) {
    o.duration = 0.3;  // the balls land at 0.2 s
    o.repeat = 1;
    o.min_time = 0.0;
  }
  std::FILE* csv = nullptr;
  if (!o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "w");
    if (csv == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", o.csv.c_str());
      return 1;
    }
    std::fprintf(csv, "scene,steps,dt,n_p,rounds,us_per_step,median_us_per_step,ratio,"
                      "step_us,advance_us,pairwise_share,columns_with_direction,columns_flagged,"
                      "assembly_us,est_assemblies_us,columns\n");
  }
  std::printf("csim_sensitivity_bench: per scene, the step loop of csim run (no recorder) "
              "plain and with n_p sensitivity columns; times per step are those of the fastest "
              "round\n");
  int status = 0;
  for (const std::string& file : o.scenes) {
    try {
      status = std::max(status, RunScene(o, file, csv));
    } catch (const std::exception& e) {
      std::printf("%s: %s\n", file.c_str(), e.what());
      status = std::max(status, 1);
    }
  }
  if (csv != nullptr) std::fclose(csv);
  return status;
}
