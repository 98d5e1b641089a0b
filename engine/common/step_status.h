#pragma once
// Numerical failure at run time is a status returned up the stack with a reason, never an
// exception from the inner loop, so the recorder can mark the file `failed` and keep every
// good step (CONTRIBUTING.md §8).

#include <string>

namespace csim {

enum class StepOutcome {
  kOk,              ///< the step produced a finite state
  kNotConverged,    ///< an iterative solve hit its iteration limit
  kNonFinite,       ///< a NaN or infinity appeared in the state or a residual
  kInterrupted,     ///< a stop was requested while the step was still iterating
  kOutOfMemory,     ///< the step needed more memory than the system would give
};

struct StepStatus {
  StepOutcome outcome = StepOutcome::kOk;
  std::string reason;  ///< human-readable; empty when ok
  bool ok() const { return outcome == StepOutcome::kOk; }
};

}  // namespace csim
