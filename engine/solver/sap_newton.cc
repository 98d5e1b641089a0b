#include "engine/solver/sap_newton.h"

#include <chrono>
#include <vector>

#include "engine/common/array_predicates.h"
#include "engine/solver/line_search.h"
#include "engine/solver/sap_cost_along_direction.h"
#include "engine/solver/sap_products.h"
#include "engine/solver/sap_stopping_criteria.h"

namespace csim::solver {
namespace {

using Clock = std::chrono::steady_clock;
using VecMap = Eigen::Map<Eigen::VectorXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;
using Vector6Map = Eigen::Map<const Eigen::Matrix<double, 6, 1>>;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The clock when the phases are timed (SapWorkspace::time_phases), else the epoch: a clock
// read costs about as much as a small island's assembly.
Clock::time_point TimedNow(const SapWorkspace& ws) {
  return ws.time_phases ? Clock::now() : Clock::time_point{};
}

// How a search along one direction ended.
enum class SearchOutcome {
  kStep,                  // the line search found alpha
  kFactorizationFailed,   // H could not be factorized, or dv is not finite
  kNotDescent,            // grad^T dv >= 0
  kLineSearchFailed,      // no acceptable alpha
};

struct Search {
  SearchOutcome outcome = SearchOutcome::kStep;
  double alpha = 0.0;
  const char* why = "";  // the line search's reason when it failed
};

// dv = -H^{-1} rhs on island i, H from ws.G. False if the factorization fails or dv is not
// finite.
bool ComputeSearchDirection(SapWorkspace& ws, int i, const std::vector<double>& rhs,
                            SapThreadScratch& scratch) {
  SapIslandState& s = ws.island[i];
  const Islands& is = ws.islands;
  const Clock::time_point assembly_start = TimedNow(ws);
  ws.newton.AssembleIsland(i, ws.G.data(), ws.G_offset, &scratch.newton);
  // One clock read ends the assembly and starts the factorization (there are several reads
  // per island per Newton iteration).
  const Clock::time_point factorization_start = TimedNow(ws);
  s.assembly_seconds +=
      std::chrono::duration<double>(factorization_start - assembly_start).count();
  const bool ok = ws.newton.FactorIsland(i);
  bool finite = true;
  if (ok) {
    for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
      const int c = is.cliques[q], o = ws.reduced_offset[c], m = ws.problem->clique_size(c);
      if (m == 6) {  // a free body: fixed size (entry by entry, the same bits)
        Eigen::Map<Eigen::Matrix<double, 6, 1>> dv(&ws.dv[o]);
        dv = -Vector6Map(&rhs[o]);
      } else {
        VecMap(&ws.dv[o], m) = -ConstVecMap(&rhs[o], m);
      }
    }
    ws.newton.SolveIsland(i, ws.dv.data(), &scratch.newton);
    for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
      const int c = is.cliques[q];
      finite = finite && AllFinite(&ws.dv[ws.reduced_offset[c]], ws.problem->clique_size(c));
    }
  }
  scratch.direction_done = TimedNow(ws);
  s.factorization_seconds +=
      std::chrono::duration<double>(scratch.direction_done - factorization_start).count();
  return ok && finite;
}

// grad^T dv on island i.
double DirectionalDerivative(const SapWorkspace& ws, int i) {
  const Islands& is = ws.islands;
  double d1_0 = 0.0;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = ws.reduced_offset[c], m = ws.problem->clique_size(c);
    d1_0 += ConstVecMap(&ws.dv[o], m).dot(ConstVecMap(&ws.grad[o], m));
  }
  return d1_0;
}

// Runs the configured line search along ws.dv on island i (d1_0 = grad^T dv < 0), after it
// forms J dv and A dv; false and a reason on failure.
bool LineSearch(const SapSolverParameters& parameters, SapWorkspace& ws, int i, double d1_0,
                SapThreadScratch& scratch, double* alpha, const char** why) {
  // The line search's time includes the directional derivative since the direction.
  const Clock::time_point start = scratch.direction_done;
  const ContactProblem& p = *ws.problem;
  const Islands& is = ws.islands;
  IslandConstraintVelocities(ws, i, ws.dv.data(), ws.dvc.data());
  double a2 = 0.0, c1 = 0.0;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = ws.reduced_offset[c], m = p.clique_size(c);
    MultiplyByA(ws, c, ws.dv.data(), ws.A_dv.data());
    const ConstVecMap dv(&ws.dv[o], m);
    a2 += dv.dot(ConstVecMap(&ws.A_dv[o], m));
    // dv^T A (v - v*) = dv^T (p - A v*) (A symmetric).
    c1 += dv.dot(ConstVecMap(&ws.p[o], m) - ConstVecMap(&ws.A_v_star[o], m));
  }
  SapIslandState& s = ws.island[i];
  const LineSearchResult r = LineSearchAlongDirection(parameters, {s.ell, s.ell_A, d1_0, c1, a2},
                                                      i, ws, scratch.G_trial.data());
  s.line_search_iterations += r.evaluations;
  if (ws.time_phases) s.line_search_seconds += SecondsSince(start);
  *alpha = r.alpha;
  *why = r.failure;
  return r.ok;
}

// Steps 3 and 4 along the Newton direction of island i's right-hand side `rhs` (the
// gradient, or the predicted one).
Search SearchAlongNewtonDirection(const SapSolverParameters& parameters, SapWorkspace& ws, int i,
                                  const std::vector<double>& rhs, SapThreadScratch& scratch) {
  Search search;
  if (!ComputeSearchDirection(ws, i, rhs, scratch)) {
    search.outcome = SearchOutcome::kFactorizationFailed;
    return search;
  }
  const double d1_0 = DirectionalDerivative(ws, i);
  if (!(d1_0 < 0.0)) {
    search.outcome = SearchOutcome::kNotDescent;
  } else if (!LineSearch(parameters, ws, i, d1_0, scratch, &search.alpha, &search.why)) {
    search.outcome = SearchOutcome::kLineSearchFailed;
  }
  return search;
}

// Step 5: v <- v + alpha dv on island i, and with it A v and J v from the line search's
// A dv and J dv (round-off apart, the same as forming them again, at a fraction of the cost).
void UpdateIterate(SapWorkspace& ws, int i, double alpha) {
  const Islands& is = ws.islands;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = ws.reduced_offset[c], m = ws.problem->clique_size(c);
    if (m == 6) {  // a free body: fixed size (entry by entry, the same bits)
      Eigen::Map<Eigen::Matrix<double, 6, 1>>(&ws.v[o]) += alpha * Vector6Map(&ws.dv[o]);
      Eigen::Map<Eigen::Matrix<double, 6, 1>>(&ws.p[o]) += alpha * Vector6Map(&ws.A_dv[o]);
    } else {
      VecMap(&ws.v[o], m) += alpha * ConstVecMap(&ws.dv[o], m);
      VecMap(&ws.p[o], m) += alpha * ConstVecMap(&ws.A_dv[o], m);
    }
  }
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const ConstraintEntry& e = ws.problem->entry(is.constraints[q]);
    for (int r = e.row_offset; r < e.row_offset + e.num_rows; ++r) ws.vc[r] += alpha * ws.dvc[r];
  }
}

// Records why island `s` ended without a step.
void EndWithoutStep(const Search& search, SapIslandState* s) {
  if (search.outcome == SearchOutcome::kFactorizationFailed) {
    FailIsland(SapTermination::kNonFinite, "Hessian factorization", s);
  } else if (s->optimal) {
    // A refining step (min_iterations()) with nothing to refine or no decrease: the guess
    // stands.
    s->stop = SapTermination::kOptimality;
  } else if (search.outcome == SearchOutcome::kLineSearchFailed) {
    FailIsland(SapTermination::kLineSearchFailed, search.why, s);
  } else {
    FailIsland(SapTermination::kNotDescent, "ill-conditioned Newton system", s);
  }
}

}  // namespace

void SolveIslandByNewton(const SapSolverParameters& parameters,
                         const std::atomic<bool>* stop_flag, int i, SapWorkspace& ws,
                         ActiveSetPrediction& prediction, SapThreadScratch& scratch) {
  SapIslandState& s = ws.island[i];
  for (;;) {
    // 1. ell_p, gamma, G and grad at v; 2. the stopping criterion.
    EvaluateIsland(ws, i);
    if (ws.trace != nullptr) ws.trace->RecordIterate(i, s);
    if (IslandStops(parameters, ws.tolerances, stop_flag, &s)) return;
    // 3. and 4. The Newton direction, on the predicted models for the first ones, and the
    // line search along it.
    bool predicted = prediction.PredictModels(parameters, ws, i);
    if (predicted) s.predicted = true;
    Search search = SearchAlongNewtonDirection(parameters, ws, i,
                                               predicted ? prediction.rhs() : ws.grad, scratch);
    if (predicted && (search.outcome == SearchOutcome::kNotDescent ||
                      search.outcome == SearchOutcome::kLineSearchFailed)) {
      // The predicted model points uphill on the true cost, or the true cost does not
      // decrease along it: plain Newton from the same v (the evaluation restores the true
      // G; v did not change, so nothing else does).
      s.prediction_fallback = true;
      predicted = false;
      EvaluateIsland(ws, i);
      search = SearchAlongNewtonDirection(parameters, ws, i, ws.grad, scratch);
    }
    if (search.outcome != SearchOutcome::kStep) {
      EndWithoutStep(search, &s);
      return;
    }
    // 5. v <- v + alpha dv; first the prediction learns from the step's start and full step.
    s.new_crossings = prediction.LearnFromStep(parameters, ws, i, predicted, search.alpha);
    UpdateIterate(ws, i, search.alpha);
    if (ws.trace != nullptr) ws.trace->RecordStep(i, search.alpha);
    ++s.iterations;
    s.update_pending = true;
    s.last_step_predicted = predicted;
    s.ell_prev = s.ell;
    s.alpha_prev = search.alpha;
  }
}

void EvaluateIsland(SapWorkspace& ws, int i) {
  const ContactProblem& p = *ws.problem;
  const Islands& is = ws.islands;
  SapIslandState& s = ws.island[i];
  // v_c = J v and p = A v: formed here for the guess, then carried along each step
  // (UpdateIterate), since the line search has J dv and A dv already.
  const bool form_kinematics = !s.kinematics_current;
  s.kinematics_current = true;
  double cost = 0.0;
  bool piece_changed = false;
  if (form_kinematics) IslandConstraintVelocities(ws, i, ws.v.data(), ws.vc.data());
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    const int piece_before = ws.piece[k];
    cost += e.constraint->Calc(&ws.vc[e.row_offset], &ws.gamma[e.row_offset],
                               &ws.G[ws.G_offset[k]], &ws.piece[k]);
    piece_changed |= ws.piece[k] != piece_before;
  }
  if (s.update_pending) {  // classify the update that led here (SapSolverStats)
    s.update_pending = false;
    if (s.last_step_predicted) {
      ++s.predicted_updates;
    } else if (!piece_changed) {
      ++s.smooth_updates;
    }
  }
  // p = A v, j_c = J^T gamma, grad = A (v - v*) - J^T gamma (docs/design/sap-problem.md §2).
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    if (form_kinematics) MultiplyByA(ws, c, ws.v.data(), ws.p.data());
    if (p.clique_size(c) == 6) {  // a free body: six stores instead of a memset call
      Eigen::Map<Eigen::Matrix<double, 6, 1>>(&ws.jc[ws.reduced_offset[c]]).setZero();
    } else {
      VecMap(&ws.jc[ws.reduced_offset[c]], p.clique_size(c)).setZero();
    }
  }
  IslandAddJTransposeTimes(ws, i, ws.gamma.data(), ws.jc.data());
  s.ell_A = s.g2 = s.p2 = s.j2 = 0.0;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = ws.reduced_offset[c], m = p.clique_size(c);
    const ConstVecMap v(&ws.v[o], m), v_star(&ws.v_star[o], m), p_v(&ws.p[o], m);
    const ConstVecMap A_v_star(&ws.A_v_star[o], m), j_c(&ws.jc[o], m), D(&ws.D[o], m);
    VecMap grad(&ws.grad[o], m);
    grad = p_v - A_v_star - j_c;
    s.ell_A += 0.5 * (v - v_star).dot(p_v - A_v_star);
    // Squared norms of SAP eq. 26 with D = diag(A)^{-1/2} (docs/design/sap-solver.md §2.1).
    s.g2 += D.cwiseProduct(grad).squaredNorm();
    s.p2 += D.cwiseProduct(p_v).squaredNorm();
    s.j2 += D.cwiseProduct(j_c).squaredNorm();
  }
  s.ell = s.ell_A + cost;
}

}  // namespace csim::solver
