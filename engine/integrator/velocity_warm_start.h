#pragma once
// The guess the contact solve starts from (SapSolverParameters::warm_start):
// the velocity extrapolated from the last two steps, v0 + (v0 - v_-1), or v0.
//
// Why extrapolate: a pile that creeps or keeps rolling changes its velocity steadily, so the
// linear extrapolation starts Newton closer than v0 does (tools/iteration_study.py measures
// the Newton iterations it saves). Any warm start leaves SAP's solution and stopping
// criterion unchanged. The first step, and the first after a failed one, start from v0. An
// extrapolated guess is refined by at least one Newton step
// (SapSolverParameters::min_iterations() = 1): accepting it as soon as it met eps_r would
// bias smooth motion by up to the tolerance every step, while one step from it is exact to
// round-off on a quadratic piece. A guess already exact to a tiny fraction of the tolerance
// (the islands of a resting pile) is not refined (SapSolverParameters::exact_guess_fraction).

#include <Eigen/Dense>

namespace csim::integrator {

/// What the warm start carries from one step to the next. Sized once per model (nv).
struct VelocityWarmStart {
  explicit VelocityWarmStart(int nv)
      : v_previous(Eigen::VectorXd::Zero(nv)), guess(Eigen::VectorXd::Zero(nv)) {}

  /// The guess for a step starting at v0: v0 + (v0 - v_-1) with `extrapolate` after a
  /// successful step, else v0. Kept in `guess`.
  const Eigen::VectorXd& Guess(const Eigen::VectorXd& v0, bool extrapolate) {
    if (has_previous && extrapolate) {
      guess = 2.0 * v0 - v_previous;  // v0 + (v0 - v_-1)
    } else {
      guess = v0;
    }
    return guess;
  }
  /// The step failed, or is not done yet: the next guess is its v0.
  void Forget() { has_previous = false; }
  /// The step starting at v0 succeeded.
  void Remember(const Eigen::VectorXd& v0) {
    v_previous = v0;
    has_previous = true;
  }

  Eigen::VectorXd v_previous;  ///< v0 of the last successful step (nv)
  bool has_previous = false;   ///< v_previous is valid
  Eigen::VectorXd guess;       ///< (nv) the warm start of the current solve
};

}  // namespace csim::integrator
