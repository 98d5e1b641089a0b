// csim_free_motion_bench: the free-motion stage (integrator::StepFreeMotion, no contact) of
// articulated scenes, with A solved by the dense Cholesky of each tree's block against the
// articulated-body recursions (integrator::TreeSolver). Both run the same scene in
// the same process, alternating in blocks of steps, each from the scene's initial state
// with its own workspace; prints, per scene and integrator, the velocities of the largest
// tree, the mean time per step of each, their ratio, the mean Newton iterations and the
// largest difference of the two final states. tools/run_free_motion_bench.sh runs it over
// ropes of 1 to 200 links and writes results/articulated_threshold.md.

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/integrator/theta_method.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/position_update.h"
#include "engine/multibody/tree_topology.h"

namespace {

using namespace csim;

struct Run {
  integrator::StepWorkspace ws;
  multibody::State state;
  double seconds = 0.0;
  long iterations = 0;
  int steps = 0;
  bool failed = false;
};

Run MakeRun(const multibody::Model& model, integrator::TreeSolver tree_solver) {
  Run run{integrator::MakeStepWorkspace(model, tree_solver),
          {0.0, model.InitialQ(), model.InitialV()}};
  multibody::NormalizeQuaternions(model, &run.state.q);
  return run;
}

void StepBlock(const multibody::Model& model, const integrator::ThetaParameters& theta,
               double dt, int steps, Run* run) {
  const integrator::FreeMotionSettings settings;
  for (int k = 0; k < steps && !run->failed; ++k) {
    const auto start = std::chrono::steady_clock::now();
    run->failed = !integrator::StepFreeMotion(model, theta, settings, dt, run->state, run->ws).ok();
    run->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run->iterations += run->ws.iterations;
    ++run->steps;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"csim_free_motion_bench: dense Cholesky against articulated-body solves of A"};
  std::vector<std::string> scenes;
  std::vector<std::string> integrators{"symplectic_euler", "midpoint"};
  int steps = 200, block = 10;
  app.add_option("scenes", scenes, "scene files")->required()->check(CLI::ExistingFile);
  app.add_option("--integrators", integrators, "integrators to run each scene with");
  app.add_option("--steps", steps, "steps of each variant")->check(CLI::PositiveNumber);
  app.add_option("--block", block, "steps of one variant before the other runs")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  std::printf("| scene | integrator | largest tree nv | dense ms/step | articulated ms/step | "
              "dense / articulated | Newton iterations per step | max |q difference| |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const std::string& path : scenes) {
    for (const std::string& integrator : integrators) {
      const io::LoadedScene scene = io::LoadScene(path, {"settings.integrator=" + integrator});
      const multibody::Model& model = scene.model;
      const integrator::ThetaParameters theta{scene.settings.integrator.theta,
                                              scene.settings.integrator.theta_q,
                                              scene.settings.gyroscopic};
      const double dt = scene.settings.time_step;
      int largest = 0;
      for (int nv : multibody::CalcTreeTopology(model).tree_nv) largest = std::max(largest, nv);
      Run dense = MakeRun(model, integrator::TreeSolver::kDense),
          articulated = MakeRun(model, integrator::TreeSolver::kArticulated);
      while (dense.steps < steps && !dense.failed && !articulated.failed) {
        const int n = std::min(block, steps - dense.steps);
        StepBlock(model, theta, dt, n, &dense);
        StepBlock(model, theta, dt, n, &articulated);
      }
      if (dense.failed || articulated.failed) {
        std::printf("| %s | %s | %d | %s | | | | |\n", scene.name.c_str(), integrator.c_str(),
                    largest, dense.failed ? "dense failed" : "articulated failed");
        continue;
      }
      const double ms_dense = 1e3 * dense.seconds / dense.steps;
      const double ms_articulated = 1e3 * articulated.seconds / articulated.steps;
      std::printf("| %s | %s | %d | %.4f | %.4f | %.2f | %.2f | %.1e |\n", scene.name.c_str(),
                  integrator.c_str(), largest, ms_dense, ms_articulated, ms_dense / ms_articulated,
                  static_cast<double>(dense.iterations) / dense.steps,
                  (dense.state.q - articulated.state.q).cwiseAbs().maxCoeff());
    }
  }
  return 0;
}
