#include "engine/solver/dense_ldlt.h"

#include <cstddef>

namespace csim::solver {
namespace {

// The loops below with the size a compile-time constant N when N > 0 (fully unrolled, by
// the pragmas), or the run-time n when N = 0. Small trees (a robot arm: a few to a dozen
// velocities) take the fixed sizes, where the loop control would cost as much as the
// arithmetic.
template <int N>
int Size(int n) {
  return N > 0 ? N : n;
}

// Column by column (left-looking): column j takes the updates L_ik (L_jk D_k) of the
// columns before it as axpys down contiguous columns, then is divided by its pivot D_jj.
// D_jj stays on the diagonal until the end, where the updates no longer read it; a fixed
// size keeps the pivots' inverses meanwhile, so each is divided once.
// The unroll pragmas (here and in Solve) make a fixed size straight-line code: GCC does not
// fully unroll these nested triangular loops on its own, and their control then costs more
// than their arithmetic (about 2.8 times the instructions at n = 7). Unrolling does not reorder
// the sums: the bits are the same.
template <int N>
bool Factor(double* a, int n_dynamic) {
  const int n = Size<N>(n_dynamic);
  double inverse_pivot[N > 0 ? N : 1];
#pragma GCC unroll 12
  for (int j = 0; j < n; ++j) {
    double* a_j = a + static_cast<std::size_t>(j) * n;
#pragma GCC unroll 12
    for (int k = 0; k < j; ++k) {
      const double* a_k = a + static_cast<std::size_t>(k) * n;
      const double t = a_k[j] * a_k[k];  // L_jk D_k
#pragma GCC unroll 12
      for (int i = j; i < n; ++i) a_j[i] -= a_k[i] * t;
    }
    const double d = a_j[j];
    if (!(d > 0.0)) return false;
    const double inverse = 1.0 / d;
    if (N > 0) inverse_pivot[N > 0 ? j : 0] = inverse;
    for (int i = j + 1; i < n; ++i) a_j[i] *= inverse;
  }
  for (int j = 0; j < n; ++j) {
    double& D_jj = a[j + static_cast<std::size_t>(j) * n];
    D_jj = N > 0 ? inverse_pivot[N > 0 ? j : 0] : 1.0 / D_jj;
  }
  return true;
}

template <int N>
void Solve(const double* f, int n_dynamic, double* x) {
  const int n = Size<N>(n_dynamic);
#pragma GCC unroll 12
  for (int j = 0; j < n; ++j) {  // L y = x, by columns of L (unit diagonal)
    const double* L_j = f + static_cast<std::size_t>(j) * n;
    const double y_j = x[j];
#pragma GCC unroll 12
    for (int i = j + 1; i < n; ++i) x[i] -= L_j[i] * y_j;
  }
#pragma GCC unroll 12
  for (int j = 0; j < n; ++j) x[j] *= f[j + static_cast<std::size_t>(j) * n];  // D^-1
#pragma GCC unroll 12
  for (int i = n - 1; i >= 0; --i) {  // L^T z = y: row i of L^T is column i of L
    const double* L_i = f + static_cast<std::size_t>(i) * n;
    double s = x[i];
#pragma GCC unroll 12
    for (int k = i + 1; k < n; ++k) s -= L_i[k] * x[k];
    x[i] = s;
  }
}

}  // namespace

bool DenseLdltInPlace(double* a, int n) {
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

void DenseLdltSolveInPlace(const double* factor, int n, double* x) {
  switch (n) {
    case 1: return Solve<1>(factor, n, x);
    case 2: return Solve<2>(factor, n, x);
    case 3: return Solve<3>(factor, n, x);
    case 4: return Solve<4>(factor, n, x);
    case 5: return Solve<5>(factor, n, x);
    case 6: return Solve<6>(factor, n, x);
    case 7: return Solve<7>(factor, n, x);
    case 8: return Solve<8>(factor, n, x);
    case 9: return Solve<9>(factor, n, x);
    case 10: return Solve<10>(factor, n, x);
    case 11: return Solve<11>(factor, n, x);
    case 12: return Solve<12>(factor, n, x);
    default: return Solve<0>(factor, n, x);
  }
}

}  // namespace csim::solver
