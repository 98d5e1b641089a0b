#pragma once
// Why a SAP solve, or one island of it, stopped (sap_solver.h).

namespace csim::solver {

/// Why the solver stopped.
enum class SapTermination {
  kNoConstraints,     ///< no constraint: v = v*, zero iterations
  kOptimality,        ///< SAP eq. 26 satisfied
  kCostStagnation,    ///< cost criterion of docs/design/sap-solver.md §2.2
  kMaxIterations,     ///< max_iterations reached (kNotConverged)
  kLineSearchFailed,  ///< the line search found no acceptable step (kNotConverged)
  kNotDescent,        ///< grad^T dv >= 0: ill-conditioned Newton system (kNotConverged)
  kNonFinite,         ///< NaN or inf in the iterate, cost or Hessian (kNonFinite)
  kInterrupted,       ///< the stop flag was raised between Newton iterations (kInterrupted)
};

/// Human-readable name of a termination reason.
const char* SapTerminationName(SapTermination t);

/// Whether `t` ends a successful solve (a solution was found, or there was nothing to solve).
bool IsSuccessfulTermination(SapTermination t);

}  // namespace csim::solver
