#pragma once
// The Newton state and outcome of one island of a SAP solve (islands.h, sap_newton.h),
// written only by the thread that solves the island.

#include "engine/solver/sap_termination.h"

namespace csim::solver {

struct SapIslandState {
  SapTermination stop = SapTermination::kOptimality;  ///< why it stopped
  const char* why = "";           ///< detail of a failure (static string)
  int iterations = 0;             ///< Newton updates of this island
  int prior_iterations = 0;       ///< the most of its parts' (a merged island; SapSolverStats)
  double ell = 0.0, ell_A = 0.0;  ///< cost and its 1/2 ||v - v*||_A^2 part [J]
  double ell_prev = 0.0, alpha_prev = 0.0;  ///< for the cost criterion
  double g2 = 0.0, p2 = 0.0, j2 = 0.0;      ///< ||D grad||^2, ||D p||^2, ||D j_c||^2
  int line_search_iterations = 0;
  /// Some direction was predicted (active_set_prediction.h); some predicted direction was
  /// not a descent direction and the plain one was taken instead.
  bool predicted = false, prediction_fallback = false;
  bool last_step_predicted = false;  ///< the last step followed a predicted direction
  /// The last step carried some constraint through its predicted region
  /// (SapSolverParameters::predict_crossings).
  bool new_crossings = false;
  /// Updates by kind (SapSolverStats); the active-set ones are the rest of `iterations`.
  int predicted_updates = 0, smooth_updates = 0;
  /// v moved since the last evaluation, which then classifies the update by comparing the
  /// constraints' quadratic pieces.
  bool update_pending = false;
  int active_set_updates() const { return iterations - predicted_updates - smooth_updates; }
  bool optimal = false;             ///< met SAP eq. 26 at the last evaluation
  bool kinematics_current = false;  ///< v_c = J v and p = A v hold for the current v
  /// Wall time of the island's Newton work [s], by part.
  double assembly_seconds = 0.0, factorization_seconds = 0.0, line_search_seconds = 0.0;
};

}  // namespace csim::solver
