#pragma once
// Parameters of the SAP solver (docs/design/sap-solver.md). The first group is `settings.solver` of
// the scene format, field for key and value for value (scene-format.md): this struct is where
// their defaults are defined. The rest are internals, not scene keys: Drake's values, or
// csim's where marked. Why the warm start and the predictions are safe and what they
// save: docs/design/warm-start-and-prediction.md.

#include <limits>

namespace csim::solver {

/// settings.solver.line_search.
enum class SapLineSearch {
  kExact,         ///< `exact`: safeguarded Newton on d ell / d alpha (rtsafe, docs/design/sap-solver.md §4.2)
  kBacktracking,  ///< `backtracking`: Armijo backtracking (docs/design/sap-solver.md §4.4)
};

/// settings.solver.warm_start: the velocity each contact solve starts from.
enum class WarmStart {
  kExtrapolated,  ///< `extrapolated`: v0 + (v0 - v_-1) (integrator/contact_step.h)
  kPrevious,      ///< `previous`: v0, the SAP paper's choice
};

/// Exact line search (docs/design/sap-solver.md §4.2).
struct ExactLineSearchParameters {
  double alpha_max = 1.5;        ///< largest step tried [1]
  double f_tolerance = 1.0e-8;   ///< on |d ell/d alpha| / |d ell/d alpha (0)| [1]
  double x_tolerance = 1.0e-8;   ///< relative to the initial guess alpha_g [1]
  int max_iterations = 100;      ///< root-finder evaluations before failure
};

/// Backtracking line search (docs/design/sap-solver.md §4.4; Drake's and the paper's defaults).
struct BacktrackingLineSearchParameters {
  double rho = 0.8;              ///< step reduction factor in (0, 1)
  double armijo_c = 1.0e-4;      ///< Armijo sufficient-decrease constant
  double alpha_max = 1.25;       ///< first trial = 1/rho, so the second trial is alpha = 1
  int max_iterations = 40;       ///< trials before failure
};

struct SapSolverParameters {
  // --- settings.solver.* of the scene format ---
  double relative_tolerance = 1.0e-6;   ///< eps_r of SAP eq. 26 [1]
  double absolute_tolerance = 1.0e-14;  ///< eps_a of SAP eq. 26 [sqrt(J)]
  int max_iterations = 100;             ///< Newton iterations before kNotConverged
  SapLineSearch line_search = SapLineSearch::kExact;
  /// The guess the step hands the solver; the solver only reads it through min_iterations().
  WarmStart warm_start = WarmStart::kExtrapolated;
  /// A guess within this fraction of the tolerance stands unrefined, in [0, 1] (see
  /// min_iterations()).
  double exact_guess_fraction = 1.0e-6;
  /// Contacts stuck at the end of the last step are modelled stuck in the first Newton
  /// directions (sap_solver.h); false: plain SAP.
  bool predict_stiction = true;
  /// With predict_stiction: a contact that a cut step carries through stiction, or close
  /// past it, is predicted stuck in the next directions.
  bool predict_crossings = true;
  /// How many of an island's first Newton directions may use predictions (>= 1).
  int prediction_iterations = 20;
  /// Contacts apart at the guess join no island until they touch at a solution (sap_solver.h).
  bool defer_separated = true;

  // --- internals (Drake's values unless noted) ---
  /// Cost-stagnation criterion (docs/design/sap-solver.md §2.2): stop when |ell^{m+1} - ell^m| <
  /// cost_absolute_tolerance + cost_relative_tolerance * (|ell^{m+1}| + |ell^m|)/2 and the
  /// last step alpha > 0.5.
  double cost_absolute_tolerance = 1.0e-30;  ///< [J]
  double cost_relative_tolerance = 1.0e-15;  ///< [1]
  /// Slop of the monotonic-decrease check and of the backtracking flatness test
  /// (docs/design/sap-solver.md §2.2, §4.4), relative to max(1, |ell|) [1].
  double relative_slop = 1000.0 * std::numeric_limits<double>::epsilon();
  ExactLineSearchParameters exact;
  BacktrackingLineSearchParameters backtracking;
  /// Newton systems with at most this many velocities use a dense Cholesky, larger ones the
  /// block-sparse one (block_cholesky.h). csim's: 0, always block-sparse; the dense path is
  /// the reference the tests compare against.
  int dense_threshold = 0;
  /// csim's: a predicted direction is repeated only after a step cut below this alpha [1].
  double prediction_repeat_alpha = 0.9;
  /// csim's: the normal-velocity margin [m/s] a contact must keep to be deferred.
  double separated_margin = 0.05;

  /// Newton iterations an island takes before the optimality test may stop it: 1 with the
  /// extrapolated warm start (one step refines its guess, unless exact to
  /// exact_guess_fraction), 0 with `previous` (SAP's rule). Rationale:
  /// docs/design/warm-start-and-prediction.md.
  int min_iterations() const { return warm_start == WarmStart::kExtrapolated ? 1 : 0; }
};

}  // namespace csim::solver
