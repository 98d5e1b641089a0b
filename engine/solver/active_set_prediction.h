#pragma once
// Warm start of the active set (csim's addition to SAP; SapSolverParameters::predict_stiction).
//
// The first Newton direction of an island, and each of the next ones (up to
// prediction_iterations) while the line search cut the previous predicted step short
// (alpha < prediction_repeat_alpha), use, for each constraint that offers one
// (StictionPrediction::CalcPredicted: contacts that ended the previous step in stiction and
// are compressive at the current iterate) and whose model has not contradicted itself in
// this solve (its impulse at the model's minimum outside the predicted region,
// StictionPrediction::PredictionHoldsAt; a crossing, below, makes a contradicted prediction
// count again), the model of the predicted region instead of the region its impulse falls
// in at the iterate v:
//   dv = -H~^{-1} (grad - J^T (gamma~ - gamma)),   H~ = A + J^T G~ J,
// i.e. the Newton step of the cost with those constraints' stiction quadratic continued to
// v. Why: v0 is the previous solution, but the contact points and frames moved with the
// step, so J v0 carries small slips that the tiny R_t turns into sliding impulses; plain
// Newton then rediscovers stiction one contact per iteration, with short line-search steps.
// Why more than the first direction: in a collapsing pile the line search cuts that step
// short, the predicted contacts keep part of their slip, and the same rediscovery starts
// from the second iteration. The gains are in results/benchmarks.md and
// results/paired_solver_options.md.
//
// Predictions learnt within the solve (SapSolverParameters::predict_crossings): after a
// step the line search cut short, a constraint whose full step passed through its predicted
// region (StictionPrediction::StepCrossesPredictedRegion: a sliding contact carried through
// stiction, or close past it) is predicted too, also when an earlier prediction of it was
// contradicted, and the next direction is predicted, within the same prediction_iterations
// budget and with the same safeguards.
//
// Why it is safe: each step is still taken by the exact line search on the true cost, and
// only if dv is a descent direction of the true cost (otherwise the Newton loop takes the
// plain direction), so the cost decreases monotonically; after at most
// prediction_iterations predicted directions the iteration is SAP's, whose global
// convergence (SAP appendix E) holds from any starting point. The stopping criterion is
// SAP's on the true cost (sap_stopping_criteria.h).

#include <vector>

#include "engine/solver/sap_island_state.h"
#include "engine/solver/sap_solver_parameters.h"
#include "engine/solver/sap_workspace.h"

namespace csim::solver {

/// The per-constraint state of the warm start of the active set over one solve. Islands
/// touch disjoint entries, so their Newton loops may call it concurrently.
class ActiveSetPrediction {
 public:
  /// Sizes the state for ws's problem (after SetupSapWorkspace) and forgets the last solve's
  /// crossings and refutations.
  void Setup(const SapWorkspace& ws);

  /// Whether island i's next Newton direction uses the predicted models: if the parameters
  /// and the island's history ask for one (see the top) and some constraint offers one, sets
  /// the predicted constraints' G in ws.G and the matching right-hand side
  /// grad - J^T (gamma~ - gamma) in rhs().
  bool PredictModels(const SapSolverParameters& parameters, SapWorkspace& ws, int i);
  /// The right-hand side of the last predicted direction (reduced).
  const std::vector<double>& rhs() const { return rhs_; }

  /// What island i's accepted step (ws.vc and ws.dvc: its start and full step, before v
  /// moves) teaches: with `predicted`, the predicted constraints whose own model's minimum
  /// lies outside the predicted region are refuted; a step cut short (alpha below
  /// prediction_repeat_alpha) marks the constraints it carried through their predicted
  /// region. Returns whether it marked one that was not marked before (s.new_crossings).
  bool LearnFromStep(const SapSolverParameters& parameters, SapWorkspace& ws, int i,
                     bool predicted, double alpha);

 private:
  // Replaces ws.G of island i's constraints that offer a prediction and writes rhs_; false
  // if none offers one.
  bool ApplyPredictions(SapWorkspace& ws, int i);
  // Marks refuted_ the predicted constraints whose model's own minimum (v_c + dv_c, the full
  // step) lies outside the predicted region, and clears their crossed_.
  void RefutePredictions(SapWorkspace& ws, int i);
  // Marks crossed_ the constraints the step carried through their predicted region; true if
  // it marked one that was not marked before.
  bool MarkCrossings(const SapWorkspace& ws, int i);

  // gamma - gamma~ per constraint row and the predicted right-hand side (reduced).
  std::vector<double> gamma_change_, rhs_;
  // Per constraint: whether the current direction predicts it; whether a step of this solve
  // carried it through its predicted region (cleared when its model is refuted); whether a
  // predicted model has contradicted itself there in this solve (not predicted again unless
  // a later step crosses it).
  std::vector<char> predicted_now_, crossed_, refuted_;
};

}  // namespace csim::solver
