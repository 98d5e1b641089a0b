#pragma once
// L D L^T factorization and solve of a small dense SPD matrix (column-major, entry (i, j) at
// a[i + n j]), as plain loops. Why: the blocks factored once or twice a step (a robot arm's
// block of A in the free motion, its PD rows' Newton matrix) have a few to a few tens of
// rows, where Eigen's dynamic-size LLT spends more in its block bookkeeping and out-of-line
// triangular solves than in the arithmetic, and where the chain of square roots and
// divisions of a Cholesky factor and its solves is a good part of the time: L D L^T needs
// no square root, and with D stored inverted its solve no division (results/robots_bench.md
// measures the steps they serve). Free bodies keep the 6 x 6 kernels of block_cholesky.h.

namespace csim::solver {

/// In-place factor a = L D L^T of the n x n matrix a (its lower triangle; the strict upper
/// triangle is neither read nor written): L unit lower triangular in the strict lower
/// triangle, 1 / D on the diagonal. False on a pivot D_jj that is not > 0 (a is not
/// numerically SPD; a is then partly overwritten).
bool DenseLdltInPlace(double* a, int n);

/// x = (L D L^T)^{-1} x in place, with a factor from DenseLdltInPlace.
void DenseLdltSolveInPlace(const double* factor, int n, double* x);

}  // namespace csim::solver
