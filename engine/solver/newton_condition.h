#pragma once
// The condition number of SAP's Newton matrix at the solution of a solve
// (settings.output.condition_number; docs/design/sap-solver.md §6.1): per island,
//   kappa_2(H) = lambda_max(H) / lambda_min(H),   H = A + J^T G(v) J,
// with G at the island's accepted v (the last evaluation of its Newton loop), in the
// generalized coordinates the solver works in (SI units: the value depends on them, as the
// rotational and translational velocities of a body have different units).
//
// Estimator: H is assembled and factorized once more at v, as the Newton loop would for its
// next direction (NewtonSystem: the block-sparse Cholesky, or the tree's articulated-body
// factorization), and the Lanczos iteration (lanczos_extremes.h) gives lambda_max from
// products with H (A, J and G through the solver's own products: sap_products.h) and
// 1 / lambda_min from solves with the factor. Both Ritz values lie inside the spectrum, so
// the estimate never exceeds kappa_2(H) (up to round-off) and converges to it from below;
// each run stops at a Ritz residual of LanczosParameters::relative_tolerance (or after n
// or max_iterations steps): within 1e-8 of the dense kappa_2 on the test problems' islands
// of up to 60 velocities, 1e-6 on larger ones (tests/solver/newton_condition_test.cc).
//
// Why it leaves the trajectory alone: it reads the solution (v, G, the island partition)
// and writes only the Newton system's storage (the next solve assembles it afresh) and its
// own buffers. Why no allocation once warmed up: every buffer grows to the largest problem
// seen and is kept. Islands are estimated independently, so they may run on several
// threads with the same results.

#include <vector>

#include "engine/solver/lanczos_extremes.h"
#include "engine/solver/sap_workspace.h"

namespace csim::solver {

/// The two extreme eigenvalues of one island's Newton matrix, as estimated.
struct IslandCondition {
  double lambda_max = 0.0;  ///< [kg, or the matching generalized unit]
  double lambda_min = 0.0;  ///< [kg, ...]; 0 if the factorization failed
  int iterations = 0;       ///< Lanczos steps of both runs
  /// lambda_max / lambda_min; NaN when H could not be factorized.
  double condition_number() const;
};

class NewtonConditionEstimator {
 public:
  /// Sizes the buffers for the islands of ws (after the last SetupIslands of a solve) and
  /// num_threads threads; allocates only when they grow.
  void Reserve(const SapWorkspace& ws, int num_threads);

  /// Island i of ws at its current v and G, on thread `thread` with its scratch (also the
  /// Newton system's). Precondition: Reserve since the last SetupIslands.
  IslandCondition EstimateIsland(SapWorkspace& ws, int i, int thread, SapThreadScratch& scratch);

  /// How far each Lanczos run goes (tests may lower the iteration count to check the
  /// estimate's convergence on larger islands).
  void set_parameters(const LanczosParameters& parameters) { parameters_ = parameters; }
  const LanczosParameters& parameters() const { return parameters_; }

 private:
  LanczosParameters parameters_;
  // Reduced and constraint-row vectors shared by all threads: each island touches only its
  // own entries (sap_workspace.h).
  std::vector<double> x_, y_, rows_, G_rows_;
  std::vector<LanczosScratch> lanczos_;  // per thread
};

/// y = H x on island i's entries (x, y reduced; `rows` and `G_rows` constraint-row
/// scratch): A x + J^T G J x with ws.G, the same products the Newton loop uses.
void MultiplyIslandNewtonMatrix(const SapWorkspace& ws, int i, const double* x, double* y,
                                double* rows, double* G_rows);

}  // namespace csim::solver
