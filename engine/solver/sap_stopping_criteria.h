#pragma once
// When SAP's Newton iteration on an island stops (docs/design/sap-solver.md §2.1, §2.2), checked
// before each factorization, so an optimal warm start returns after zero iterations (with
// min_iterations() = 1, only a guess that meets the criterion to exact_guess_fraction of the
// tolerance, SapSolverParameters::exact_guess_fraction):
//   optimality (SAP eq. 26): ||D grad|| <= eps_a + eps_r max(||D p||, ||D j_c||),
//     D = diag(A)^{-1/2}, p = A v, j_c = J^T gamma  (Drake's scaling);
//   cost stagnation: |ell^m - ell^{m-1}| < eps_a^c + eps_r^c (|ell^m| + |ell^{m-1}|)/2 with
//     the last step alpha > 0.5, and that step along a plain (not a predicted) Newton
//     direction: a wrong prediction can give a direction along which the true cost barely
//     changes far from the optimum.
// Failure is a status, never an exception (CONTRIBUTING.md §8): kMaxIterations after
// max_iterations, kNonFinite when a NaN/inf shows up, kInterrupted at a stop request.
//
// Islands (islands.h): with K > 1 islands each island must meet SAP eq. 26 with eps_a /
// sqrt(K) and eps_r / sqrt(2), which implies SAP eq. 26 for the whole problem (proof at
// TolerancesForIslands): the stopping criterion is never looser than the global one.

#include <atomic>
#include <vector>

#include "engine/solver/sap_island_state.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::solver {

/// The tolerances of SAP eq. 26 each island is held to.
struct IslandTolerances {
  double absolute = 0.0;  ///< [sqrt(J)]
  double relative = 0.0;  ///< [1]
};

/// eps_a and eps_r of `parameters` split over num_islands islands so that every island
/// meeting its criterion implies the whole problem meets SAP eq. 26.
IslandTolerances TolerancesForIslands(const SapSolverParameters& parameters, int num_islands);

/// Applies the stopping tests to island `s`, freshly evaluated at its iterate; true when it
/// stops (converged, or failed: recorded in s.stop and s.why). Writes s.optimal. A raised
/// `stop_flag` (may be null) stops it with kInterrupted.
bool IslandStops(const SapSolverParameters& parameters, const IslandTolerances& tolerances,
                 const std::atomic<bool>* stop_flag, SapIslandState* s);

/// Records a failure of island `s`: why it stopped and a static string with the detail.
void FailIsland(SapTermination t, const char* why, SapIslandState* s);

/// SAP eq. 32 over every participating velocity, from the islands' latest evaluations:
/// ||D grad|| / max(||D p||, ||D j_c||) (0 if all three norms are 0).
double MomentumError(const std::vector<SapIslandState>& islands);

/// SAP eq. 32 from the sums over islands of ||D grad||^2, ||D p||^2 and ||D j_c||^2
/// (MomentumError's formula; newton_trace.h's rows use it on the same sums).
double MomentumErrorOfSums(double g2, double p2, double j2);

}  // namespace csim::solver
