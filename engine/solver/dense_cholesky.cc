#include "engine/solver/dense_cholesky.h"

#include <cmath>

namespace csim::solver {

bool DenseCholeskyInPlace(double* a, int n) {
  for (int j = 0; j < n; ++j) {
    double d = a[j + j * n];
    for (int k = 0; k < j; ++k) d -= a[j + k * n] * a[j + k * n];
    if (!(d > 0.0)) return false;
    const double L_jj = std::sqrt(d);
    a[j + j * n] = L_jj;
    const double inverse = 1.0 / L_jj;
    for (int i = j + 1; i < n; ++i) {
      double s = a[i + j * n];
      for (int k = 0; k < j; ++k) s -= a[i + k * n] * a[j + k * n];
      a[i + j * n] = s * inverse;
    }
  }
  return true;
}

void DenseCholeskySolveInPlace(const double* L, int n, double* x) {
  for (int i = 0; i < n; ++i) {  // L y = x
    double s = x[i];
    for (int k = 0; k < i; ++k) s -= L[i + k * n] * x[k];
    x[i] = s / L[i + i * n];
  }
  for (int i = n - 1; i >= 0; --i) {  // L^T z = y
    double s = x[i];
    for (int k = i + 1; k < n; ++k) s -= L[k + i * n] * x[k];
    x[i] = s / L[i + i * n];
  }
}

}  // namespace csim::solver
