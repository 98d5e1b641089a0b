#include "engine/solver/active_set_prediction.h"

#include <algorithm>

#include "engine/solver/sap_products.h"

namespace csim::solver {
namespace {

using VecMap = Eigen::Map<Eigen::VectorXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;

}  // namespace

void ActiveSetPrediction::Setup(const SapWorkspace& ws) {
  const int num_constraints = ws.problem->num_constraints();
  rhs_.resize(ws.num_reduced);
  gamma_change_.resize(ws.num_rows);
  predicted_now_.assign(num_constraints, 0);
  crossed_.assign(num_constraints, 0);
  refuted_.assign(num_constraints, 0);
}

bool ActiveSetPrediction::PredictModels(const SapSolverParameters& parameters,
                                        SapWorkspace& ws, int i) {
  const SapIslandState& s = ws.island[i];
  // The first direction is predicted; a later one only while the previous predicted step
  // was cut short, or after a step that carried some constraint through its predicted
  // region (predict_crossings), within the same budget of directions.
  const bool predict_now =
      s.iterations == 0 ||
      (s.iterations < parameters.prediction_iterations &&
       ((s.last_step_predicted && s.alpha_prev < parameters.prediction_repeat_alpha) ||
        s.new_crossings));
  return predict_now && parameters.predict_stiction && ApplyPredictions(ws, i);
}

bool ActiveSetPrediction::LearnFromStep(const SapSolverParameters& parameters,
                                        SapWorkspace& ws, int i, bool predicted, double alpha) {
  if (predicted) RefutePredictions(ws, i);
  return parameters.predict_stiction && parameters.predict_crossings &&
         alpha < parameters.prediction_repeat_alpha && MarkCrossings(ws, i);
}

bool ActiveSetPrediction::ApplyPredictions(SapWorkspace& ws, int i) {
  const ContactProblem& p = *ws.problem;
  const Islands& is = ws.islands;
  bool any = false;
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    double* change = &gamma_change_[e.row_offset];
    // gamma~ goes into `change` first, then change = gamma - gamma~.
    // A refuted prediction from the previous step stays refuted; a crossing is new
    // evidence, good until its own model is refuted (RefutePredictions).
    predicted_now_[k] = (crossed_[k] || !refuted_[k]) && e.prediction != nullptr &&
                        e.prediction->CalcPredicted(&ws.vc[e.row_offset], crossed_[k], change,
                                                    &ws.G[ws.G_offset[k]]);
    if (predicted_now_[k]) {
      for (int r = 0; r < e.num_rows; ++r) change[r] = ws.gamma[e.row_offset + r] - change[r];
      any = true;
    } else {
      std::fill(change, change + e.num_rows, 0.0);
    }
  }
  if (!any) return false;
  // rhs = grad + J^T (gamma - gamma~) = A (v - v*) - J^T gamma~.
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = ws.reduced_offset[c];
    VecMap(&rhs_[o], p.clique_size(c)) = ConstVecMap(&ws.grad[o], p.clique_size(c));
  }
  IslandAddJTransposeTimes(ws, i, gamma_change_.data(), rhs_.data());
  return true;
}

void ActiveSetPrediction::RefutePredictions(SapWorkspace& ws, int i) {
  // Why: a contact predicted stuck that really creeps makes every predicted model slightly
  // wrong; predicted again and again, the island then converges only linearly. Its model's
  // own minimum shows it: the stiction impulse there leaves the friction cone.
  const ContactProblem& p = *ws.problem;
  for (int q = ws.islands.constraint_start[i]; q < ws.islands.constraint_start[i + 1]; ++q) {
    const int k = ws.islands.constraints[q];
    if (!predicted_now_[k]) continue;
    const ConstraintEntry& e = p.entry(k);
    double* v_c = &ws.vc_trial[e.row_offset];  // free after the line search
    for (int r = 0; r < e.num_rows; ++r)
      v_c[r] = ws.vc[e.row_offset + r] + ws.dvc[e.row_offset + r];
    if (!e.prediction->PredictionHoldsAt(v_c)) {
      refuted_[k] = 1;
      crossed_[k] = 0;
    }
  }
}

bool ActiveSetPrediction::MarkCrossings(const SapWorkspace& ws, int i) {
  // Only constraints off every quadratic piece at the step's start (ws.piece, from the
  // island's evaluation there) can be crossing into one: for SAP's friction cone, the
  // sliding contacts. A refuted one too: its model was refuted at the minimum of an earlier
  // direction's model, which other constraints' wrong regions had moved, so a later crossing
  // is new evidence. The prediction_iterations budget bounds the predict-refute cycles.
  const ContactProblem& p = *ws.problem;
  bool marked = false;
  for (int q = ws.islands.constraint_start[i]; q < ws.islands.constraint_start[i + 1]; ++q) {
    const int k = ws.islands.constraints[q];
    if (ws.piece[k] >= 0 || crossed_[k]) continue;
    const ConstraintEntry& e = p.entry(k);
    if (e.prediction != nullptr &&
        e.prediction->StepCrossesPredictedRegion(&ws.vc[e.row_offset], &ws.dvc[e.row_offset])) {
      crossed_[k] = 1;
      marked = true;
    }
  }
  return marked;
}

}  // namespace csim::solver
