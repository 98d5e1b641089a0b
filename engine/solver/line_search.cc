#include "engine/solver/line_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace csim::solver {
namespace {

LineSearchResult Accept(double alpha, int evaluations) {
  LineSearchResult r;
  r.ok = true;
  r.alpha = alpha;
  r.evaluations = evaluations;
  return r;
}

LineSearchResult Fail(double alpha, int evaluations, const char* why) {
  LineSearchResult r;
  r.alpha = alpha;
  r.evaluations = evaluations;
  r.failure = why;
  return r;
}

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

// Dimensionless derivative f(alpha) = ell'(alpha) / (-ell'(0)) and f' (docs/design/sap-solver.md
// §4.2 step 4).
struct ScaledDerivative {
  LineSearchFunction& fn;
  double scale;  // 1 / (-ell'(0))
  int evaluations = 0;
  void Eval(double alpha, double* f, double* df) {
    double ell, d1, d2;
    fn.Eval(alpha, &ell, &d1, &d2);
    ++evaluations;
    *f = d1 * scale;
    *df = d2 * scale;
  }
};

// Newton with bisection safeguard on f over the bracket [lo, hi], f(lo) < 0 < f(hi),
// starting at x (docs/design/sap-solver.md §4.2 step 6; Numerical Recipes' rtsafe idea, our own
// code).
LineSearchResult SafeguardedNewton(ScaledDerivative& g, double lo, double hi, double x,
                                   const ExactLineSearchParameters& p, double x_tol) {
  double dx_old = hi - lo;
  double dx = dx_old;
  double f, df;
  g.Eval(x, &f, &df);
  while (g.evaluations <= p.max_iterations) {
    if (std::abs(f) < p.f_tolerance) return Accept(x, g.evaluations);
    // Shrink the bracket: the end with the same sign as f(x) moves to x.
    if (f < 0.0) lo = x; else hi = x;
    const double x_newton = x - f / df;
    const bool newton_outside = !(x_newton > lo && x_newton < hi);
    const bool newton_slow = 2.0 * std::abs(f) > std::abs(dx_old * df);
    dx_old = dx;
    if (newton_outside || newton_slow) {
      dx = 0.5 * (hi - lo);
      x = lo + dx;
    } else {
      dx = x_newton - x;
      x = x_newton;
    }
    // Also done once the step is below what doubles resolve at x: on a very stiff cost
    // (a near-rigid joint limit) f changes by more than f_tolerance between neighbouring
    // doubles, so |f| < f_tolerance may not exist, and the bracket shrank to two adjacent
    // doubles while x_tol, relative to a tiny initial guess -ell'(0) / ell''(alpha_max),
    // stayed below their gap: without this test the search fails there (long chains at
    // their limits).
    if (std::abs(dx) < std::max(x_tol, 4.0 * kEpsilon * std::abs(x)))
      return Accept(x, g.evaluations);
    g.Eval(x, &f, &df);
  }
  return Fail(x, g.evaluations, "exact line search: root finder exceeded its iterations");
}

}  // namespace

LineSearchResult ExactLineSearch(LineSearchFunction& f, double ell0, double d1_0,
                                 const ExactLineSearchParameters& p, double cost_abs_tol,
                                 double cost_rel_tol) {
  (void)ell0;
  if (!(d1_0 < 0.0)) return Fail(0.0, 0, "exact line search: not a descent direction");
  // Steps 1-2: if ell still decreases at alpha_max, take alpha_max.
  const double alpha_max = p.alpha_max;
  double ell_max, d1_max, d2_max;
  f.Eval(alpha_max, &ell_max, &d1_max, &d2_max);
  if (!std::isfinite(ell_max) || !std::isfinite(d1_max) || !std::isfinite(d2_max))
    return Fail(alpha_max, 1, "exact line search: non-finite cost derivatives");
  if (d1_max <= 0.0) return Accept(alpha_max, 1);
  // Step 3: near convergence the derivative is round-off; take the full Newton step.
  if (-d1_0 < cost_abs_tol + cost_rel_tol * ell_max) return Accept(1.0, 1);
  // Steps 4-5: bracket [0, alpha_max] with f(0) = -1 < 0 < f(alpha_max); initial guess
  // from the curvature at alpha_max.
  ScaledDerivative g{f, 1.0 / (-d1_0)};
  g.evaluations = 1;
  if (d1_max / (-d1_0) < p.f_tolerance) return Accept(alpha_max, 1);
  const double alpha_guess = std::min(-d1_0 / d2_max, alpha_max);
  return SafeguardedNewton(g, 0.0, alpha_max, alpha_guess, p, p.x_tolerance * alpha_guess);
}

LineSearchResult BacktrackingLineSearch(LineSearchFunction& f, double ell0, double d1_0,
                                        const BacktrackingLineSearchParameters& p,
                                        double relative_slop) {
  if (!(d1_0 < 0.0)) return Fail(0.0, 0, "backtracking line search: not a descent direction");
  double alpha = p.alpha_max;
  double ell, d1;
  f.Eval(alpha, &ell, &d1, nullptr);
  int evaluations = 1;
  if (!std::isfinite(ell))
    return Fail(alpha, evaluations, "backtracking line search: non-finite cost");
  // ell still decreasing at alpha_max (convexity): nothing shorter is better.
  const double slop = relative_slop / 10.0 * std::max(1.0, 0.5 * (std::abs(ell) + std::abs(ell0)));
  if (d1 < slop) return Accept(alpha, evaluations);
  auto armijo = [&](double a, double l) { return l < ell0 + p.armijo_c * a * d1_0; };
  double alpha_prev = alpha, ell_prev = ell;
  for (int i = 1; i < p.max_iterations; ++i) {
    alpha *= p.rho;
    f.Eval(alpha, &ell, &d1, nullptr);
    ++evaluations;
    // Flat cost along the ray (round-off): accept.
    if (std::abs((ell - ell_prev) / (alpha - alpha_prev)) < slop) return Accept(alpha, evaluations);
    // The cost went up again: the best trial so far was the previous one.
    if (ell > ell_prev && armijo(alpha, ell))
      return Accept(armijo(alpha_prev, ell_prev) ? alpha_prev : alpha, evaluations);
    alpha_prev = alpha;
    ell_prev = ell;
  }
  if (armijo(alpha, ell)) return Accept(alpha, evaluations);
  return Fail(alpha, evaluations, "backtracking line search: Armijo condition not met");
}

}  // namespace csim::solver
