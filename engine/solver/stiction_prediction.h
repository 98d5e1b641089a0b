#pragma once
// The second interface of a contact constraint: a guess of the region of its cost the
// solution will be in, which the solver's warm start of the active set
// (active_set_prediction.h) uses for an island's first Newton directions. Only the contact
// kinds implement it (SapFrictionConeConstraint: stiction; SapHuntCrossleyConstraint: the
// lagged friction's stuck model); a kind without it (a joint limit) is never predicted.
//
// A prediction never changes what the solver converges to: a predicted model only shapes a
// search direction, which is taken only when it descends on the true cost, and the
// stopping criterion is evaluated on the true cost (Constraint).

namespace csim::solver {

/// A constraint's prediction of its active region. Arrays have the constraint's n_k rows;
/// v_c and dv_c as in Constraint::Calc (without the bias).
class StictionPrediction {
 public:
  virtual ~StictionPrediction() = default;

  /// A prediction of the region the solution will be in, from the previous step or, with
  /// `crossed`, from this solve: a Newton step that the line search cut short carried v_c
  /// through that region (StepCrossesPredictedRegion). When the kind offers one at v_c,
  /// writes the gamma and G of the predicted region's model at v_c (extended beyond that
  /// region where needed) and returns true; otherwise returns false and writes nothing.
  /// Same units and preconditions as Constraint::Calc.
  virtual bool CalcPredicted(const double* v_c, bool crossed, double* gamma, double* G) const = 0;

  /// Whether the full Newton step from v_c to v_c + dv_c passes through the region this
  /// kind predicts (CalcPredicted) while v_c lies outside it: evidence, once the line
  /// search has stopped that step short, that the solution lies there.
  virtual bool StepCrossesPredictedRegion(const double* v_c, const double* dv_c) const = 0;

  /// Whether the predicted region's model is consistent at v_c, i.e. its impulse there lies
  /// in that region. The solver asks at the minimum of a predicted Newton model (the full
  /// step) and stops predicting a constraint whose own model contradicts it.
  virtual bool PredictionHoldsAt(const double* v_c) const = 0;

 protected:
  StictionPrediction() = default;
  StictionPrediction(const StictionPrediction&) = default;
  StictionPrediction& operator=(const StictionPrediction&) = default;
};

}  // namespace csim::solver
