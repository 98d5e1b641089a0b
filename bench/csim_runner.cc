#include "bench/csim_runner.h"

#include <chrono>
#include <cstdio>

#include "engine/multibody/energy.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/position_update.h"
#include "engine/sim/simulate.h"

namespace csim::bench {

CsimRunner::CsimRunner(const io::LoadedScene& scene, int threads, bool stage_times)
    : scene_(scene),
      theta_{scene.settings.integrator.theta, scene.settings.integrator.theta_q,
             scene.settings.gyroscopic},
      contact_(sim::ContactParametersFor(scene.settings)),
      ws_(integrator::MakeStepWorkspace(scene.model, scene.settings.tree_solver)),
      cws_(scene.model),
      energy_ws_(multibody::MakeWorkspace(scene.model)),
      state_{0.0, scene.model.InitialQ(), scene.model.InitialV()} {
  multibody::NormalizeQuaternions(scene.model, &state_.q);
  cws_.solver.set_parameters(scene.settings.solver);
  cws_.solver.set_num_threads(threads);
  cws_.SetStageTiming(stage_times);
}

bool CsimRunner::Step(StepSample* sample) {
  const double dt = scene_.settings.time_step;
  const auto start = std::chrono::steady_clock::now();
  const StepStatus status = integrator::StepWithContact(scene_.model, theta_, free_motion_,
                                                        contact_, dt, false, state_, ws_, cws_);
  sample->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!status.ok()) {
    error_ = status.reason;
    return false;
  }
  ++step_;
  state_.t = step_ * dt;  // as sim::Simulate: no accumulated round-off in the clock
  const integrator::StepStats& s = cws_.stats;
  const solver::SapSolverStats& sap = cws_.result.stats;
  sample->iterations = s.iterations;
  sample->island_iterations = s.num_constraints > 0 ? sap.mean_island_iterations : 0.0;
  sample->islands = s.num_constraints > 0 ? sap.num_islands : 0;
  sample->contacts = s.num_constraints;
  sample->free_motion = s.free_motion_seconds;
  sample->collision = s.collision_seconds;
  sample->narrow_phase_pairs = s.collision_pairs.narrow_phase_pairs;
  sample->touching_pairs = s.collision_pairs.touching_pairs;
  sample->feature_pairs = s.collision_pairs.feature_pairs;
  sample->build = s.build_seconds;
  sample->solve = s.solve_seconds;
  sample->assembly = sap.assembly_seconds;
  sample->factorization = sap.factorization_seconds;
  sample->line_search = sap.line_search_seconds;
  sample->momentum_error = s.num_constraints > 0 ? sap.momentum_error : 0.0;
  sample->cost_criterion =
      s.num_constraints > 0 && sap.termination == solver::SapTermination::kCostStagnation;
  sample->work_by_size.fill(0.0);
  sample->work_by_iterations.fill(0.0);
  sample->work_by_kind.fill(0.0);
  // The Newton islands' work; a step the servos' direct solve took ran none
  // (contact/pd_actuators.h), and the solver's islands are then an earlier step's.
  if (!cws_.actuators.last_step_direct()) {
    const solver::SapSolver& solver = cws_.solver;
    for (int i = 0; i < solver.num_islands(); ++i) {
      const int trees = solver.island_num_cliques(i), iterations = solver.island_iterations(i);
      sample->work_by_size[WorkSizeBucket(trees)] += trees * iterations;
      sample->work_by_iterations[WorkIterationBucket(iterations)] += trees * iterations;
      sample->work_by_kind[0] += trees * solver.island_predicted_updates(i);
      sample->work_by_kind[1] += trees * solver.island_active_set_updates(i);
      sample->work_by_kind[2] += trees * solver.island_smooth_updates(i);
    }
    // Islands a merge replaced (SapSolverParameters::defer_separated): their work counts too.
    for (const solver::SapSolver::MergedIsland& m : solver.merged_islands()) {
      sample->work_by_size[WorkSizeBucket(m.cliques)] += m.cliques * m.iterations;
      sample->work_by_iterations[WorkIterationBucket(m.iterations)] += m.cliques * m.iterations;
      sample->work_by_kind[0] += m.cliques * m.predicted_updates;
      sample->work_by_kind[1] += m.cliques * m.active_set_updates;
      sample->work_by_kind[2] += m.cliques * m.smooth_updates;
    }
  }
  // At the step's end state, in a workspace of its own (outside the timed step): the
  // step's M is at its start, and the articulated trees' blocks of it are never formed.
  multibody::CalcKinematics(scene_.model, state_.t, state_.q, state_.v, energy_ws_);
  sample->kinetic_energy = multibody::CalcKineticEnergy(scene_.model, energy_ws_);
  return true;
}

std::string CsimRunner::SettingsLine() const {
  const sim::Settings& s = scene_.settings;
  const solver::SapSolverParameters& p = cws_.solver.parameters();
  char buffer[1024];
  std::snprintf(buffer, sizeof buffer,
                "csim: SAP solver (block-sparse Cholesky, islands), contact model %s, %s (theta %g, theta_q %g), dt per configuration (first %g s), eps_r %g, eps_a %g, "
                "%s line search, max %d iterations, contact margin %g m, near-rigid beta %g, "
                "sigma %g, stiction prediction %s (first %d Newton directions%s), warm start %s, "
                "%s, contact stiffness, tau_d "
                "and d from the scene",
                sim::ContactModelName(s.contact_model), s.integrator.name.c_str(), s.integrator.theta, s.integrator.theta_q,
                s.time_step, p.relative_tolerance, p.absolute_tolerance,
                p.line_search == solver::SapLineSearch::kExact ? "exact" : "backtracking",
                p.max_iterations, s.contact_margin, s.near_rigid_threshold, s.stiction_sigma,
                !p.predict_stiction                              ? "off"
                : s.contact_model == sim::ContactModel::kSimilar ? "off for similar contacts"
                                                                 : "on",
                p.prediction_iterations,
                p.predict_stiction && p.predict_crossings
                    ? ", and contacts a cut step carries through or close past stiction"
                    : "",
                p.warm_start == solver::WarmStart::kExtrapolated ? "extrapolated v0 + (v0 - v_-1)"
                                                                 : "v0",
                p.defer_separated
                    ? "islands from the contacts not apart at the guess (merged when they touch)"
                    : "islands from every contact candidate");
  return buffer;
}

}  // namespace csim::bench
