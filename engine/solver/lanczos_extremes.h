#pragma once
// The largest eigenvalue of a symmetric positive semidefinite operator by the Lanczos
// iteration without reorthogonalization (Golub & Van Loan, Matrix Computations, §10.1),
// for the condition estimate of SAP's Newton matrix (newton_condition.h): lambda_max of H
// from products with H, and 1 / lambda_min of H from solves with its Cholesky factor.
//
// After j steps from a unit start vector q_1 the iteration has the j x j tridiagonal
// T_j = Q_j^T Op Q_j; its largest eigenvalue theta_j (the Ritz value) never exceeds
// lambda_max(Op) and never decreases with j (Cauchy interlacing), and it converges to
// lambda_max much faster than the power method's Rayleigh quotient, which lies in the same
// Krylov space. Without reorthogonalization the Lanczos vectors lose orthogonality once a
// Ritz value has converged, which adds spurious copies of converged values but moves none
// outside the spectrum (Paige's analysis), so theta_j stays a lower bound up to round-off.
// The iteration stops when the Ritz pair's residual |Op y - theta_j y| = beta_j |u_j| (u_j the
// last component of T_j's top unit eigenvector) falls below a relative tolerance, so that
// some eigenvalue lies within it of theta_j (and within its square over the gap, Kato-Temple,
// when theta_j is separated); when the Krylov space is invariant (beta_j = 0: theta_j is an
// eigenvalue); or after n steps (T_n holds the whole spectrum in exact arithmetic) or
// `max_iterations`. Rejected: stopping when theta_j stops changing, which stops on the
// plateaus Lanczos makes below a cluster of top eigenvalues (a brick under a box: 7e-6 low).
// Rejected: the power method (its Rayleigh quotient converges at (lambda_2 / lambda_1)^2k,
// slow on the clustered top of a contact Hessian); the Hager-Higham 1-norm estimate on the
// factor (kappa_1 is within a factor n of the 2-norm condition number only, too loose to
// compare models); a dense eigensolver (O(n^3) and an allocation per island).
//
// Memory: the scratch is grown by Reserve and never shrunk; the iteration does not allocate.

#include <cmath>
#include <vector>

namespace csim::solver {

struct LanczosParameters {
  int max_iterations = 60;           ///< Lanczos steps at most (>= 1)
  double relative_tolerance = 1e-6;  ///< stop when the Ritz residual <= this theta_j
};

/// Vectors of one Lanczos run on operators of up to `capacity` values.
struct LanczosScratch {
  std::vector<double> q, q_prev, w;   ///< Lanczos vectors and the product
  std::vector<double> alpha, beta;    ///< T's diagonal and subdiagonal
  std::vector<double> tridiagonal;    ///< LargestTridiagonalEigenvalue's work
  /// Grows the vectors to n values and max_iterations coefficients.
  void Reserve(int n, int max_iterations);
};

struct LanczosResult {
  double value = 0.0;  ///< theta: the estimate of lambda_max (a lower bound up to round-off)
  int iterations = 0;  ///< Lanczos steps, i.e. products with the operator
  bool converged = false;  ///< stopped by the tolerance, an invariant subspace or j = n
};

/// The largest eigenvalue of the symmetric tridiagonal matrix with diagonal alpha[0..k-1] and
/// subdiagonal beta[0..k-2], given an upper bound `upper` of it (k >= 1): Newton's method on
/// its characteristic polynomial from above, which decreases monotonically to the largest
/// root of a polynomial with real roots, evaluated through the ratios of the leading minors
/// of (x I - T), which are positive above the root (no overflow for any k), safeguarded by
/// bisection. `last_component` (may be null) receives |u_k|, the last component of the
/// corresponding unit eigenvector (by one inverse iteration with the found shift), and then
/// needs 2 k doubles of `work`.
double LargestTridiagonalEigenvalue(const double* alpha, const double* beta, int k, double upper,
                                    double* last_component = nullptr, double* work = nullptr);

/// The deterministic start vector of the iteration: n values of unit norm, pseudo-random so
/// that no symmetry of the problem makes it orthogonal to the top eigenvector.
void LanczosStartVector(int n, double* q);

/// lambda_max of the symmetric positive semidefinite n x n operator `apply`, which writes
/// y = Op x for x, y of n values (no overlap). Precondition: scratch->Reserve(n,
/// parameters.max_iterations) was called. Never allocates.
template <class Apply>
LanczosResult LanczosLargestEigenvalue(int n, Apply&& apply, const LanczosParameters& parameters,
                                       LanczosScratch* scratch) {
  double* q = scratch->q.data();
  double* q_prev = scratch->q_prev.data();
  double* w = scratch->w.data();
  double* alpha = scratch->alpha.data();
  double* beta = scratch->beta.data();
  LanczosStartVector(n, q);
  for (int r = 0; r < n; ++r) q_prev[r] = 0.0;
  LanczosResult result;
  double theta_prev = 0.0, beta_prev = 0.0;
  for (int j = 0; j < parameters.max_iterations; ++j) {
    apply(static_cast<const double*>(q), w);
    double a = 0.0;
    for (int r = 0; r < n; ++r) a += q[r] * w[r];
    double b2 = 0.0;
    for (int r = 0; r < n; ++r) {
      w[r] -= a * q[r] + beta_prev * q_prev[r];
      b2 += w[r] * w[r];
    }
    alpha[j] = a;
    const double b = std::sqrt(b2);
    // theta_j <= max(theta_{j-1}, alpha_j) + beta_{j-1} (Weyl: T_j is diag(T_{j-1},
    // alpha_j) plus a perturbation of norm beta_{j-1}).
    const double upper = (j == 0 ? a : std::fmax(theta_prev, a)) + beta_prev;
    double u = 1.0;  // the last component of T_j's top eigenvector
    const double theta =
        j == 0 ? a
               : LargestTridiagonalEigenvalue(alpha, beta, j + 1, upper, &u,
                                              scratch->tridiagonal.data());
    result.value = theta;
    result.iterations = j + 1;
    // The Ritz pair's residual |Op y - theta y| = beta_j |u|.
    const bool settled = b * u <= parameters.relative_tolerance * std::fabs(theta);
    // An invariant Krylov space (beta_j at round-off of theta) or all of R^n: T_j is exact.
    const bool exhausted = b <= 1e-14 * std::fabs(theta) || j + 1 >= n;
    if (settled || exhausted || !std::isfinite(theta)) {
      result.converged = std::isfinite(theta);
      return result;
    }
    beta[j] = b;
    for (int r = 0; r < n; ++r) {
      q_prev[r] = q[r];
      q[r] = w[r] / b;
    }
    beta_prev = b;
    theta_prev = theta;
  }
  return result;
}

}  // namespace csim::solver
