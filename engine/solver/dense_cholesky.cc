#include "engine/solver/dense_cholesky.h"

#include <cmath>

namespace csim::solver {
namespace {

// The loops below with the size a compile-time constant N when N > 0 (fully unrolled by the
// compiler), or the run-time n when N = 0. Small trees (a robot arm: a few to a dozen
// velocities) take the fixed sizes, where the loop control would cost as much as the
// arithmetic.
template <int N>
int Size(int n) {
  return N > 0 ? N : n;
}

// Column by column (left-looking): column j takes the updates of the columns before it as
// axpys down contiguous columns, then is scaled by its pivot. Every inner loop runs along a
// column, contiguous in memory.
template <int N>
bool Factor(double* a, int n_dynamic) {
  const int n = Size<N>(n_dynamic);
  for (int j = 0; j < n; ++j) {
    double* a_j = a + static_cast<size_t>(j) * n;
    for (int k = 0; k < j; ++k) {
      const double* a_k = a + static_cast<size_t>(k) * n;
      const double L_jk = a_k[j];
      for (int i = j; i < n; ++i) a_j[i] -= a_k[i] * L_jk;
    }
    const double d = a_j[j];
    if (!(d > 0.0)) return false;
    const double L_jj = std::sqrt(d);
    a_j[j] = L_jj;
    const double inverse = 1.0 / L_jj;
    for (int i = j + 1; i < n; ++i) a_j[i] *= inverse;
  }
  return true;
}

template <int N>
void Solve(const double* L, int n_dynamic, double* x) {
  const int n = Size<N>(n_dynamic);
  for (int j = 0; j < n; ++j) {  // L y = x, by columns of L
    const double* L_j = L + static_cast<size_t>(j) * n;
    const double y_j = x[j] / L_j[j];
    x[j] = y_j;
    for (int i = j + 1; i < n; ++i) x[i] -= L_j[i] * y_j;
  }
  for (int i = n - 1; i >= 0; --i) {  // L^T z = y: row i of L^T is column i of L
    const double* L_i = L + static_cast<size_t>(i) * n;
    double s = x[i];
    for (int k = i + 1; k < n; ++k) s -= L_i[k] * x[k];
    x[i] = s / L_i[i];
  }
}

}  // namespace

bool DenseCholeskyInPlace(double* a, int n) {
  switch (n) {
    case 1: return Factor<1>(a, n);
    case 2: return Factor<2>(a, n);
    case 3: return Factor<3>(a, n);
    case 4: return Factor<4>(a, n);
    case 5: return Factor<5>(a, n);
    case 6: return Factor<6>(a, n);
    case 7: return Factor<7>(a, n);
    case 8: return Factor<8>(a, n);
    case 9: return Factor<9>(a, n);
    case 10: return Factor<10>(a, n);
    case 11: return Factor<11>(a, n);
    case 12: return Factor<12>(a, n);
    default: return Factor<0>(a, n);
  }
}

void DenseCholeskySolveInPlace(const double* L, int n, double* x) {
  switch (n) {
    case 1: return Solve<1>(L, n, x);
    case 2: return Solve<2>(L, n, x);
    case 3: return Solve<3>(L, n, x);
    case 4: return Solve<4>(L, n, x);
    case 5: return Solve<5>(L, n, x);
    case 6: return Solve<6>(L, n, x);
    case 7: return Solve<7>(L, n, x);
    case 8: return Solve<8>(L, n, x);
    case 9: return Solve<9>(L, n, x);
    case 10: return Solve<10>(L, n, x);
    case 11: return Solve<11>(L, n, x);
    case 12: return Solve<12>(L, n, x);
    default: return Solve<0>(L, n, x);
  }
}

}  // namespace csim::solver
