#pragma once
// Predicates over a few contiguous doubles (a constraint's rows, a clique's velocities).

#include <cmath>

namespace csim {

/// Every one of x[0 .. n) is finite.
inline bool AllFinite(const double* x, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

/// Every one of x[0 .. n) is zero (for an impulse: a constraint apart, or not predicted).
inline bool AllZero(const double* x, int n) {
  for (int i = 0; i < n; ++i)
    if (x[i] != 0.0) return false;
  return true;
}

}  // namespace csim
