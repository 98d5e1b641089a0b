#pragma once
// Line searches on the one-dimensional restriction ell(alpha) = ell_p(v + alpha dv) of the
// SAP cost along a descent direction (docs/design/sap-solver.md §4). They know nothing of the
// problem: the Newton loop supplies ell, d ell/d alpha and d^2 ell/d alpha^2 at any alpha
// (cheap, O(n), from precomputed A dv and J dv; docs/design/sap-solver.md §4.1).

#include "engine/solver/sap_solver_parameters.h"

namespace csim::solver {

/// ell(alpha) along a fixed search direction.
class LineSearchFunction {
 public:
  virtual ~LineSearchFunction() = default;
  /// Writes ell(alpha) [J] and its first derivative d ell/d alpha [J]; when d2 != nullptr
  /// also d^2 ell/d alpha^2 [J] (> 0 for the SAP cost). Must not allocate.
  virtual void Eval(double alpha, double* ell, double* d1, double* d2) = 0;
};

struct LineSearchResult {
  bool ok = false;          ///< false: no acceptable step found
  double alpha = 0.0;       ///< step length [1]
  int evaluations = 0;      ///< calls of LineSearchFunction::Eval
  const char* failure = ""; ///< static string describing a failure (empty when ok)
};

/// Exact line search: root of d ell/d alpha in [0, alpha_max] by Newton's method safeguarded
/// with bisection (rtsafe-style; docs/design/sap-solver.md §4.2, SAP §IV-B). ell0 = ell(0), d1_0 =
/// d ell/d alpha(0) < 0. ell is convex along the ray.
LineSearchResult ExactLineSearch(LineSearchFunction& f, double ell0, double d1_0,
                                 const ExactLineSearchParameters& p, double cost_abs_tol,
                                 double cost_rel_tol);

/// Backtracking with Armijo's sufficient-decrease test (docs/design/sap-solver.md §4.4).
/// ell0 = ell(0), d1_0 = d ell/d alpha(0) < 0, relative_slop as in SapSolverParameters.
LineSearchResult BacktrackingLineSearch(LineSearchFunction& f, double ell0, double d1_0,
                                        const BacktrackingLineSearchParameters& p,
                                        double relative_slop);

}  // namespace csim::solver
