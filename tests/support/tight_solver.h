#pragma once
// The solver settings of the derivative tests (docs/design/sensitivities.md §5.3): solves to
// SAP eq. 26 at eps_r = 1e-13 with eps_a = 0 and the cost criterion off, so that a finite
// difference of two solves carries about 1e-13 / h of error, and the dense factorization,
// so that every test factors the same way.

#include "engine/solver/sap_solver.h"

namespace csim::testing {

inline solver::SapSolverParameters TightSolverParameters() {
  solver::SapSolverParameters p;
  p.relative_tolerance = 1e-13;
  p.absolute_tolerance = 0.0;
  p.cost_relative_tolerance = 0.0;  // the cost criterion off: SAP eq. 26 only
  p.cost_absolute_tolerance = 0.0;
  p.max_iterations = 200;
  p.dense_threshold = 1000;  // dense factorization
  return p;
}

}  // namespace csim::testing
