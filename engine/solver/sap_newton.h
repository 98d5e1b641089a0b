#pragma once
// SAP's Newton method on one island (SAP §IV, Algorithm 2; docs/design/sap-solver.md): from the
// guess in ws.v, repeat
//   1. evaluate ell_p(v), gamma, G and grad = A (v - v*) - J^T gamma     (SAP eq. 18, 24)
//   2. stop when the stopping criterion holds              (sap_stopping_criteria.h)
//   3. search direction dv = -H^{-1} grad, H = A + J^T G J  (newton_system.h), on the
//      predicted models for the first directions                 (active_set_prediction.h)
//   4. step length alpha by the line search on ell_p(v + alpha dv) (line_search.h,
//      sap_cost_along_direction.h)
//   5. v <- v + alpha dv
// The island's arithmetic touches only its own entries of the workspace (and the
// tolerances), so its result does not depend on the other islands, nor on the order or the
// thread in which islands are solved.

#include <atomic>

#include "engine/solver/active_set_prediction.h"
#include "engine/solver/sap_solver_parameters.h"
#include "engine/solver/sap_workspace.h"

namespace csim::solver {

/// Runs island i's Newton iteration from ws.v to its end, converged or failed (recorded in
/// ws.island[i]), on the calling thread's `scratch`. A raised `stop_flag` (may be null) ends
/// it at its next iteration with kInterrupted.
void SolveIslandByNewton(const SapSolverParameters& parameters,
                         const std::atomic<bool>* stop_flag, int i, SapWorkspace& ws,
                         ActiveSetPrediction& prediction, SapThreadScratch& scratch);

/// Step 1 on island i: cost, gamma, G, gradient and the norms of SAP eq. 26 at ws.v.
void EvaluateIsland(SapWorkspace& ws, int i);

}  // namespace csim::solver
