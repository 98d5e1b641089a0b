#include "engine/solver/sap_termination.h"

namespace csim::solver {

const char* SapTerminationName(SapTermination t) {
  switch (t) {
    case SapTermination::kNoConstraints: return "no constraints";
    case SapTermination::kOptimality: return "optimality criterion";
    case SapTermination::kCostStagnation: return "cost criterion";
    case SapTermination::kMaxIterations: return "maximum iterations reached";
    case SapTermination::kLineSearchFailed: return "line search failed";
    case SapTermination::kNotDescent: return "Newton direction is not a descent direction";
    case SapTermination::kNonFinite: return "non-finite value";
    case SapTermination::kInterrupted: return "interrupted";
  }
  return "unknown";
}

bool IsSuccessfulTermination(SapTermination t) {
  return t == SapTermination::kNoConstraints || t == SapTermination::kOptimality ||
         t == SapTermination::kCostStagnation;
}

}  // namespace csim::solver
