#include "engine/solver/sap_stopping_criteria.h"

#include <algorithm>
#include <cmath>

namespace csim::solver {
namespace {

// The right-hand side of SAP eq. 26 on one island, with the split tolerances.
double OptimalityBound(const IslandTolerances& tolerances, const SapIslandState& s) {
  return tolerances.absolute + tolerances.relative * std::sqrt(std::max(s.p2, s.j2));
}

// SAP eq. 26 on one island: ||D grad|| <= OptimalityBound.
bool MeetsOptimality(const IslandTolerances& tolerances, const SapIslandState& s) {
  return std::sqrt(s.g2) <= OptimalityBound(tolerances, s);
}

// An untouched guess meeting SAP eq. 26 with the tolerances scaled by exact_guess_fraction
// (no min_iterations() refining step for it).
bool GuessExact(const SapSolverParameters& parameters, const IslandTolerances& tolerances,
                const SapIslandState& s) {
  const double f = parameters.exact_guess_fraction;
  return s.iterations == 0 && f > 0.0 && std::sqrt(s.g2) <= f * OptimalityBound(tolerances, s);
}

// Cost-stagnation criterion of docs/design/sap-solver.md §2.2.
bool CostStagnated(const SapSolverParameters& parameters, double ell, double ell_prev,
                   double alpha_prev) {
  // docs/design/sap-solver.md §2.2: |ell^m - ell^{m-1}| < eps_a^c + eps_r^c (|ell^m| +
  // |ell^{m-1}|)/2, alpha > 0.5.
  const double tolerance = parameters.cost_absolute_tolerance +
                           parameters.cost_relative_tolerance * 0.5 *
                               (std::abs(ell) + std::abs(ell_prev));
  return std::abs(ell - ell_prev) < tolerance && alpha_prev > 0.5;
}

}  // namespace

IslandTolerances TolerancesForIslands(const SapSolverParameters& parameters, int num_islands) {
  // One island: exactly SAP eq. 26. K > 1: ||D g_i|| <= eps_a / sqrt(K) + eps_r / sqrt(2)
  // max(||D p_i||, ||D j_i||) on every island implies, by Minkowski's inequality and
  // sum_i max(P_i, J_i)^2 <= ||D p||^2 + ||D j||^2 <= 2 max(||D p||, ||D j||)^2,
  // ||D g|| <= eps_a + eps_r max(||D p||, ||D j||): the same bound, never looser.
  const int K = num_islands;
  const double eps_a = parameters.absolute_tolerance, eps_r = parameters.relative_tolerance;
  IslandTolerances t;
  t.absolute = K > 1 ? eps_a / std::sqrt(static_cast<double>(K)) : eps_a;
  t.relative = K > 1 ? eps_r / std::sqrt(2.0) : eps_r;
  return t;
}

void FailIsland(SapTermination t, const char* why, SapIslandState* s) {
  s->stop = t;
  s->why = why;
}

bool IslandStops(const SapSolverParameters& parameters, const IslandTolerances& tolerances,
                 const std::atomic<bool>* stop_flag, SapIslandState* s) {
  if (!std::isfinite(s->ell) || !std::isfinite(s->g2)) {
    FailIsland(SapTermination::kNonFinite, "cost or gradient", s);
    return true;
  }
  // Criteria are checked before factorizing: an optimal guess costs no iteration
  // (docs/design/sap-solver.md §1.1), unless min_iterations() asks for a refining step first and
  // the guess is not exact (to exact_guess_fraction of the tolerance).
  s->optimal = MeetsOptimality(tolerances, *s);
  if (s->optimal &&
      (s->iterations >= parameters.min_iterations() || GuessExact(parameters, tolerances, *s))) {
    s->stop = SapTermination::kOptimality;
    return true;
  }
  // Only after a plain Newton step: a predicted direction can be poor for the true cost
  // (a wrong prediction), and a step along it that barely changes the cost says nothing
  // about optimality.
  if (s->iterations > 0 && !s->last_step_predicted &&
      CostStagnated(parameters, s->ell, s->ell_prev, s->alpha_prev)) {
    s->stop = SapTermination::kCostStagnation;
    return true;
  }
  if (s->iterations >= parameters.max_iterations) {
    FailIsland(SapTermination::kMaxIterations, "no convergence", s);
    return true;
  }
  if (stop_flag != nullptr && stop_flag->load(std::memory_order_relaxed)) {
    FailIsland(SapTermination::kInterrupted, "stop requested", s);
    return true;
  }
  return false;
}

double MomentumError(const std::vector<SapIslandState>& islands) {
  double g2 = 0.0, p2 = 0.0, j2 = 0.0;
  for (const SapIslandState& s : islands) g2 += s.g2, p2 += s.p2, j2 += s.j2;
  return MomentumErrorOfSums(g2, p2, j2);
}

double MomentumErrorOfSums(double g2, double p2, double j2) {
  const double g = std::sqrt(g2), scale = std::sqrt(std::max(p2, j2));
  return scale > 0.0 ? g / scale : (g == 0.0 ? 0.0 : HUGE_VAL);
}

}  // namespace csim::solver
