#include "engine/solver/sap_solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/common/check.h"
#include "engine/solver/sap_newton.h"
#include "engine/solver/sap_stopping_criteria.h"

namespace csim::solver {

SapSolver::SapSolver(const SapSolverParameters& parameters) : parameters_(parameters) {}

void SapSolver::set_num_threads(int num_threads) {
  CSIM_CHECK(num_threads >= 1);
  if (num_threads == this->num_threads()) return;
  pool_.reset();  // joins the old workers first
  if (num_threads > 1) pool_ = std::make_unique<ThreadPool>(num_threads);
}

StepStatus SapSolver::Solve(const ContactProblem& problem,
                            const Eigen::Ref<const Eigen::VectorXd>& v_guess,
                            SapSolverResult* result) {
  CSIM_CHECK(v_guess.size() == problem.num_velocities());
  ws_.trace = trace_on_ ? &trace_ : nullptr;
  if (trace_on_) trace_.Clear();
  ws_.islands.num_islands = 0;  // until SetupIslands (num_islands() without constraints)
  SetupSapWorkspace(problem, num_threads(), &ws_);
  prediction_.Setup(ws_);
  LoadGuess(v_guess, &ws_);
  SapSolverStats& stats = result->stats;
  stats = SapSolverStats{};
  for (int c = 0; c < problem.num_cliques(); ++c)
    stats.num_participating_cliques += ws_.reduced_offset[c] >= 0;
  if (problem.num_constraints() == 0) return Finish(SapTermination::kNoConstraints, "", result);
  deferred_.Reset();
  deferred_.MarkCouples(parameters_, ws_);
  SetupIslands(parameters_, deferred_.couples(parameters_), &ws_);
  SolveRound();
  while (parameters_.defer_separated) {
    // The deferred contacts at v first, also after a failure (the result's v_c and gamma).
    bool failed = false;
    for (const SapIslandState& s : ws_.island)
      failed = failed || !IsSuccessfulTermination(s.stop);
    if (!deferred_.EvaluateAtSolution(ws_) || failed) break;
    deferred_.Remerge(parameters_, ws_);
    SolveRound();
  }
  if (trace_on_) trace_.Compose(ws_.islands);
  if (estimate_condition_) EstimateCondition(&stats);
  return FinishIslands(result);
}

void SapSolver::set_trace(bool on) {
  trace_on_ = on;
  if (on) trace_.Clear();
}

void SapSolver::SolveRound() {
  if (trace_on_) {
    const int K = ws_.islands.num_islands;
    solved_.resize(K);
    for (int i = 0; i < K; ++i) solved_[i] = !deferred_.IslandDone(i);
    trace_.BeginRound(ws_.islands, solved_);
  }
  SolveIslands();
  if (trace_on_) trace_.EndRound(ws_.island);
}

void SapSolver::EstimateCondition(SapSolverStats* stats) {
  for (const SapIslandState& s : ws_.island)
    if (!IsSuccessfulTermination(s.stop)) return;
  const int K = ws_.islands.num_islands;
  condition_.Reserve(ws_, num_threads());
  if (island_condition_.size() < static_cast<size_t>(K)) island_condition_.resize(K);
  auto estimate = [this](int i, int thread) {
    island_condition_[i] =
        condition_.EstimateIsland(ws_, i, thread, ws_.scratch[thread]).condition_number();
  };
  if (pool_ == nullptr || K < 2) {
    for (int i = 0; i < K; ++i) estimate(i, 0);
  } else {
    pool_->ParallelFor(K, estimate);
  }
  // The largest over the islands, each of which the solver factorizes by itself; NaN if
  // any island's could not be factorized.
  double largest = 0.0;
  for (int i = 0; i < K; ++i) {
    if (std::isnan(island_condition_[i])) return;
    largest = std::max(largest, island_condition_[i]);
  }
  if (K > 0) stats->condition_number = largest;
}

void SapSolver::SolveIslands() {
  const int K = ws_.islands.num_islands;
  auto solve = [this](int i, SapThreadScratch& scratch) {
    if (deferred_.IslandDone(i)) return;
    SolveIslandByNewton(parameters_, stop_, i, ws_, prediction_, scratch);
  };
  if (pool_ == nullptr || K < 2) {
    for (int i = 0; i < K; ++i) solve(i, ws_.scratch[0]);
    return;
  }
  // Largest first, so that a big island does not start last and leave the other threads
  // idle; ties by index (any order gives the same results).
  schedule_.resize(K);
  for (int i = 0; i < K; ++i) schedule_[i] = i;
  std::sort(schedule_.begin(), schedule_.end(), [this](int a, int b) {
    const std::vector<int>& size = ws_.islands.num_velocities;
    return size[a] != size[b] ? size[a] > size[b] : a < b;
  });
  auto body = [this, &solve](int index, int thread) {
    solve(schedule_[index], ws_.scratch[thread]);
  };
  pool_->ParallelFor(K, body);
}

void SapSolver::FinishStats(SapSolverStats* stats) const {
  stats->cost = 0.0;
  for (const SapIslandState& s : ws_.island) stats->cost += s.ell;
  stats->momentum_error = MomentumError(ws_.island);
  stats->num_islands = ws_.islands.num_islands;
  // Island iterations weighted by the island's share of the participating velocities.
  double weighted = 0.0;
  for (int i = 0; i < ws_.islands.num_islands; ++i) {
    const SapIslandState& s = ws_.island[i];
    weighted += static_cast<double>(ws_.islands.num_velocities[i]) * s.iterations;
    stats->iterations = std::max(stats->iterations, s.prior_iterations + s.iterations);
    stats->line_search_iterations += s.line_search_iterations;
    stats->assembly_seconds += s.assembly_seconds;
    stats->factorization_seconds += s.factorization_seconds;
    stats->line_search_seconds += s.line_search_seconds;
    stats->predicted_islands += s.predicted;
    stats->prediction_fallbacks += s.prediction_fallback;
    stats->predicted_updates += s.predicted_updates;
    stats->smooth_updates += s.smooth_updates;
    stats->active_set_updates += s.active_set_updates();
  }
  // The work of islands a merge replaced (defer_separated), and its rounds.
  for (const MergedIsland& m : deferred_.merged()) {
    stats->predicted_updates += m.predicted_updates;
    stats->smooth_updates += m.smooth_updates;
    stats->active_set_updates += m.active_set_updates;
  }
  weighted += deferred_.merged_work_velocities();
  stats->mean_island_iterations = ws_.num_reduced > 0 ? weighted / ws_.num_reduced : 0.0;
}

StepStatus SapSolver::FinishIslands(SapSolverResult* result) {
  FinishStats(&result->stats);
  for (const SapIslandState& s : ws_.island)
    if (!IsSuccessfulTermination(s.stop)) return Finish(s.stop, s.why, result);
  for (const SapIslandState& s : ws_.island)
    if (s.stop != SapTermination::kOptimality) return Finish(s.stop, "", result);
  return Finish(SapTermination::kOptimality, "", result);
}

StepStatus SapSolver::Finish(SapTermination t, const char* reason, SapSolverResult* result) {
  using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;
  const ContactProblem& problem = *ws_.problem;
  result->v = problem.v_star();
  for (int c = 0; c < problem.num_cliques(); ++c) {
    const int o = ws_.reduced_offset[c], m = problem.clique_size(c);
    if (o >= 0) result->v.segment(problem.clique_offset(c), m) = ConstVecMap(&ws_.v[o], m);
  }
  result->gamma = ConstVecMap(ws_.gamma.data(), ws_.num_rows);
  result->v_c = ConstVecMap(ws_.vc.data(), ws_.num_rows);
  SapSolverStats& s = result->stats;
  s.termination = t;
  s.num_participating_velocities = ws_.num_reduced;
  StepStatus& status = result->status;
  const bool ok = IsSuccessfulTermination(t);
  status.outcome = ok                                ? StepOutcome::kOk
                   : t == SapTermination::kNonFinite   ? StepOutcome::kNonFinite
                   : t == SapTermination::kInterrupted ? StepOutcome::kInterrupted
                                                       : StepOutcome::kNotConverged;
  status.reason.clear();
  if (!ok) {
    char buffer[256];
    std::snprintf(buffer, sizeof(buffer),
                  "SAP solver: %s (%s) after %d iterations; momentum error %.3g",
                  SapTerminationName(t), reason, s.iterations, s.momentum_error);
    status.reason = buffer;
  }
  return status;
}

}  // namespace csim::solver
