#pragma once
// Cholesky factorization and solve of a small dense SPD matrix (column-major, entry (i, j)
// at a[i + n j]), as plain loops. Why: the blocks factored once or twice a step (a robot
// arm's block of A in the free motion, its PD rows' Newton matrix) have a few to a few tens
// of rows, where Eigen's dynamic-size LLT spends more in its block bookkeeping and
// out-of-line triangular solves than in the arithmetic (results/robots_bench.md measures the
// steps they serve). Free bodies keep the unrolled 6 x 6 kernels of block_cholesky.h.

namespace csim::solver {

/// In-place Cholesky factor L (a = L L^T) in the lower triangle of the n x n matrix a; the
/// strict upper triangle is neither read nor written. False on a pivot that is not > 0 (a
/// is not numerically SPD; a is then partly overwritten).
bool DenseCholeskyInPlace(double* a, int n);

/// x = (L L^T)^{-1} x in place, with L the lower triangle of a factor from
/// DenseCholeskyInPlace.
void DenseCholeskySolveInPlace(const double* L, int n, double* x);

}  // namespace csim::solver
