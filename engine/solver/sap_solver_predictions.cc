#include "engine/solver/sap_solver.h"

#include <algorithm>

// SapSolver's warm start of the active set (sap_solver.h, "Warm start of the active set" and
// "Predictions learnt within the solve"): the predicted models of an island's constraints,
// their refutation after a predicted step, and the crossings a cut step reveals.

namespace csim::solver {
namespace {

using VecMap = Eigen::Map<Eigen::VectorXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;

}  // namespace

bool SapSolver::ApplyPredictions(int i) {
  const ContactProblem& p = *problem_;
  const Islands& is = islands_;
  bool any = false;
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    double* change = &gamma_change_[e.row_offset];
    // gamma~ goes into `change` first, then change = gamma - gamma~.
    // A refuted prediction from the previous step stays refuted; a crossing is new
    // evidence, good until its own model is refuted (RefutePredictions).
    predicted_now_[k] = (crossed_[k] || !refuted_[k]) &&
                        e.constraint->CalcPredicted(&vc_[e.row_offset], crossed_[k], change,
                                                    &G_[G_offset_[k]]);
    if (predicted_now_[k]) {
      for (int r = 0; r < e.num_rows; ++r) change[r] = gamma_[e.row_offset + r] - change[r];
      any = true;
    } else {
      std::fill(change, change + e.num_rows, 0.0);
    }
  }
  if (!any) return false;
  // rhs = grad + J^T (gamma - gamma~) = A (v - v*) - J^T gamma~.
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], o = reduced_offset_[c];
    VecMap(&rhs_[o], p.clique_size(c)) = ConstVecMap(&grad_[o], p.clique_size(c));
  }
  IslandAddJTransposeTimes(i, gamma_change_.data(), rhs_.data());
  return true;
}

void SapSolver::RefutePredictions(int i) {
  // Why: a contact predicted stuck that really creeps makes every predicted model slightly
  // wrong; predicted again and again, the island then converges only linearly (a settled
  // pile took 3 steps of alpha 0.99 per time step instead of 1-2). Its model's own minimum
  // shows it: the stiction impulse there leaves the friction cone.
  const ContactProblem& p = *problem_;
  for (int q = islands_.constraint_start[i]; q < islands_.constraint_start[i + 1]; ++q) {
    const int k = islands_.constraints[q];
    if (!predicted_now_[k]) continue;
    const ConstraintEntry& e = p.entry(k);
    double* v_c = &vc_trial_[e.row_offset];  // free after the line search
    for (int r = 0; r < e.num_rows; ++r)
      v_c[r] = vc_[e.row_offset + r] + dvc_[e.row_offset + r];
    if (!e.constraint->PredictionHoldsAt(v_c)) {
      refuted_[k] = 1;
      crossed_[k] = 0;
    }
  }
}

bool SapSolver::MarkCrossings(int i) {
  // Only constraints off every quadratic piece at the step's start (piece_, from EvalIsland
  // there) can be crossing into one: for SAP's friction cone, the sliding contacts. A
  // refuted one too: its model was refuted at the minimum of an earlier direction's model,
  // which other constraints' wrong regions had moved, so a later crossing is new evidence
  // (on a 32-body island of clutter-160, a contact refuted after the first direction cut
  // the next four steps short and ended stuck). The prediction_iterations budget bounds
  // the predict-refute cycles.
  const ContactProblem& p = *problem_;
  bool marked = false;
  for (int q = islands_.constraint_start[i]; q < islands_.constraint_start[i + 1]; ++q) {
    const int k = islands_.constraints[q];
    if (piece_[k] >= 0 || crossed_[k]) continue;
    const ConstraintEntry& e = p.entry(k);
    if (e.constraint->StepCrossesPredictedRegion(&vc_[e.row_offset], &dvc_[e.row_offset])) {
      crossed_[k] = 1;
      marked = true;
    }
  }
  return marked;
}

}  // namespace csim::solver
