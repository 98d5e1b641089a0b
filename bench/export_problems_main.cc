// csim_export_problems: writes the contact problems SAP solves in a clutter run (or a scene
// file) to an HDF5 file, with SAP's solution, iterations, momentum error and wall time of
// each, for a general-purpose conic solver to solve the same convex problems
// (tools/conic_solver_study.py, docs/design/conic_comparison.md). File layout:
// bench/problem_export.h.
//
// What it does: steps the scene with csim exactly as csim_bench does (bench/csim_runner.h,
// the stages timed), and every --every steps from --skip seconds on, takes the step's
// contact problem (if it has constraints) with the guess the step started from and the
// step's own solve: its solution, statistics and wall time (the step's stage clock around
// SapSolver::Solve). The simulation is deterministic, so --runs R runs it R times and
// keeps, per exported step, the fastest of its R solve times (as csim_bench --repeat does
// per window: it damps the machine's spread, e.g. a step that the scheduler interrupted);
// every run must reach the same solution at those steps (exit status 1 otherwise).
// Outside the steps, each problem is rebuilt from the captured copy (BuildProblem, what a
// reader of the file gets) and solved --repeat times by a solver of the scene's settings
// from the same guess; every re-solve must return the step's velocities bit for bit (exit
// status 1 otherwise: the file would not hold the problem SAP solved), and the fastest
// one's time is recorded beside the step's.
//
//   build/bench/csim_export_problems -n 40 --walls with --dt 2e-3 --duration 2 --every 25
//       -o /tmp/clutter-40.h5

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench_options.h"
#include "bench/clutter_scene.h"
#include "bench/csim_runner.h"
#include "bench/problem_export.h"
#include "engine/io/scene_loader.h"

namespace csim::bench {
namespace {

struct Options {
  // clutter-40 with walls, a problem every 25 steps; duration, skip and every apply to a
  // --scene too.
  ClutterSamplingOptions clutter;
  int repeat = 1;
  int runs = 3;
  std::string scene;  // a scene file instead of the generated clutter
  std::vector<std::string> overrides;
  std::string output;
};

bool SameBits(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  return x.size() == y.size() &&
         std::equal(x.data(), x.data() + x.size(), y.data());
}

// Rebuilds `exported` and solves it `repeat` >= 1 times from its guess with `solver`;
// returns the fastest solve [s], or -1 after printing why when a re-solve differs from the
// step's own solution.
double Resolve(const ExportedProblem& exported, int repeat, solver::SapSolver* solver,
               solver::ContactProblem* scratch, solver::SapSolverResult* result) {
  BuildProblem(exported, scratch);
  double fastest = -1.0;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    solver->Solve(*scratch, exported.v_guess, result);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!SameBits(result->v, exported.v) || result->stats.iterations != exported.sap_iterations) {
      std::fprintf(stderr,
                   "csim_export_problems: step %ld: the problem rebuilt from the export does "
                   "not reproduce the step's solve (iterations %d vs %d)\n",
                   exported.step, result->stats.iterations, exported.sap_iterations);
      return -1.0;
    }
    fastest = fastest < 0 ? s : std::min(fastest, s);
  }
  return fastest;
}

// Runs the scene o.runs times and collects every o.clutter.every-th step's problem (after
// o.clutter.skip)
// into *problems, with the fastest of its solve times over the runs; counts the refused
// ones in *refused. Returns 0, or the program's exit status after printing why.
int CollectProblems(const io::LoadedScene& scene, const Options& o,
                    std::vector<ExportedProblem>* problems, int* refused) {
  const double dt = scene.settings.time_step;
  const long steps = std::lround(o.clutter.duration / dt);
  const long first = std::lround(o.clutter.skip / dt);
  for (int run = 0; run < o.runs; ++run) {
    CsimRunner runner(scene);  // stages timed: the step's solve time is recorded
    size_t next = 0;           // the next exported problem (runs after the first)
    for (long step = 1; step <= steps; ++step) {
      StepSample sample;
      if (!runner.Step(&sample)) {
        std::fprintf(stderr, "csim_export_problems: step %ld failed: %s\n", step,
                     runner.error().c_str());
        return 3;
      }
      if (step < first || step % o.clutter.every != 0) continue;
      const integrator::ContactStepWorkspace& w = runner.workspace();
      if (w.problem.num_constraints() == 0) continue;
      if (run > 0) {
        if (next >= problems->size() || (*problems)[next].step != step) continue;  // refused
        ExportedProblem& p = (*problems)[next++];
        if (!SameBits(w.result.v, p.v)) {
          std::fprintf(stderr, "csim_export_problems: run %d differs at step %ld\n", run + 1,
                       step);
          return 1;
        }
        p.sap_solve_seconds = std::min(p.sap_solve_seconds, sample.solve);
        continue;
      }
      ExportedProblem p;
      const std::string why = CaptureProblem(w.problem, w.warm_start.guess, w.result, &p);
      if (!why.empty()) {
        if ((*refused)++ == 0) std::printf("step %ld not exported: %s\n", step, why.c_str());
        continue;
      }
      p.step = step;
      p.time = (step - 1) * dt;
      p.sap_solve_seconds = sample.solve;
      problems->push_back(std::move(p));
    }
  }
  return 0;
}

}  // namespace
}  // namespace csim::bench

int main(int argc, char** argv) {
  using namespace csim::bench;  // NOLINT
  Options o;
  CLI::App app{"writes the contact problems SAP solves in a clutter run to an HDF5 file"};
  AddClutterSamplingOptions(&app, &o.clutter, 1, "problem");
  app.add_option("--repeat", o.repeat, "re-solves of each problem from the file (fastest kept)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--runs", o.runs, "simulations; each step's fastest solve time is kept")
      ->check(CLI::PositiveNumber);
  app.add_option("--scene", o.scene,
                 "a scene file instead of the clutter (its own time step: --dt does not apply)");
  app.add_option("--set", o.overrides, "KEY=VALUE scene override, as csim --set");
  app.add_option("-o,--output", o.output, "HDF5 file to write")->required();
  CLI11_PARSE(app, argc, argv);

  std::string command;
  std::string name;
  std::unique_ptr<csim::io::LoadedScene> scene;
  try {
    if (!o.scene.empty()) {
      scene = std::make_unique<csim::io::LoadedScene>(csim::io::LoadScene(o.scene, o.overrides));
      command = o.scene;
      name = o.scene;
    } else {
      const ClutterConfig config = o.clutter.Config();
      scene = std::make_unique<csim::io::LoadedScene>(
          LoadClutterScene(config, o.clutter.duration, o.overrides, &command));
      name = ConfigName(config);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csim_export_problems: %s\n", e.what());
    return 1;
  }
  for (const std::string& s : o.overrides) command += " --set " + s;
  std::printf("== %s: %s; a problem every %d steps from t = %g s, fastest solve of %d runs, "
              "%d re-solves each\n",
              name.c_str(), command.c_str(), o.clutter.every, o.clutter.skip, o.runs, o.repeat);

  std::vector<ExportedProblem> problems;
  int refused = 0;
  const int status = CollectProblems(*scene, o, &problems, &refused);
  if (status != 0) return status;

  csim::solver::SapSolver resolver(scene->settings.solver);
  csim::solver::ContactProblem scratch;
  csim::solver::SapSolverResult resolved;
  double max_error = 0.0, sap_seconds = 0.0;
  try {
    ProblemFileWriter writer(o.output, name, command, scene->settings.solver);
    for (ExportedProblem& p : problems) {
      if (o.repeat > 0) {
        p.sap_resolve_seconds = Resolve(p, o.repeat, &resolver, &scratch, &resolved);
        if (p.sap_resolve_seconds < 0.0) return 1;
      }
      writer.Append(p);
      max_error = std::max(max_error, p.sap_momentum_error);
      sap_seconds += p.sap_solve_seconds;
    }
    writer.Close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csim_export_problems: %s\n", e.what());
    return 4;
  }
  const int exported = static_cast<int>(problems.size());
  std::printf("wrote %s: %d problems (%d refused), SAP's solves %.3f ms in all, largest "
              "momentum error %.2e%s\n",
              o.output.c_str(), exported, refused, 1e3 * sap_seconds, max_error,
              o.repeat > 0 ? "; every re-solve from the file reproduced the step's solve" : "");
  return 0;
}
