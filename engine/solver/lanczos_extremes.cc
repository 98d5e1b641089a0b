#include "engine/solver/lanczos_extremes.h"

#include <cstdint>

namespace csim::solver {

void LanczosScratch::Reserve(int n, int max_iterations) {
  for (std::vector<double>* v : {&q, &q_prev, &w})
    if (v->size() < static_cast<size_t>(n)) v->resize(n);
  for (std::vector<double>* v : {&alpha, &beta})
    if (v->size() < static_cast<size_t>(max_iterations)) v->resize(max_iterations);
  if (tridiagonal.size() < 2 * static_cast<size_t>(max_iterations))
    tridiagonal.resize(2 * static_cast<size_t>(max_iterations));
}

namespace {

// |u_k|, the last component of the unit eigenvector of T for its largest eigenvalue, by one
// step of inverse iteration with the shift x just above that eigenvalue: x I - T is then
// positive definite, its L D L^T factorization (pivots d_i = r_i of the Sturm recurrence)
// is stable, and (x I - T)^{-1} w is the eigenvector up to a part (x - theta) / gap, i.e. to
// round-off when x is within a few ulps of theta and theta is separated. w: a fixed vector
// with no zero entry, so no symmetry of T hides the eigenvector. Where theta is one of a
// cluster the result is the last entry of some unit vector of the cluster's span, and the
// Ritz residual it gives holds to within the cluster's width.
// Why not u_k^2 = p_{k-1}(theta) / p_k'(theta) from the Sturm recurrence itself: at x off
// theta by round-off it overestimates u_k by orders of magnitude where the eigenvector is
// small at its end (theta nearly an eigenvalue of T_{k-1} too).
double LastEigenvectorComponent(const double* alpha, const double* beta, int k, double x,
                                double* work) {
  // x I - T = L D L^T: pivots d_i (the Sturm recurrence's r_i) and L's subdiagonal
  // l_i = -b_i / d_i. Solve L y = w, then D v = y, then L^T z = v, in place in z.
  double* d = work;
  double* z = work + k;
  auto w = [](int i) { return 1.0 + 0.25 * static_cast<double>(i % 3); };  // 1, 1.25, 1.5
  d[0] = x - alpha[0];
  z[0] = w(0);
  for (int i = 1; i < k; ++i) {
    d[i] = (x - alpha[i]) - beta[i - 1] * beta[i - 1] / d[i - 1];
    z[i] = w(i) + beta[i - 1] / d[i - 1] * z[i - 1];
  }
  for (int i = 0; i < k; ++i) z[i] /= d[i];
  double norm2 = z[k - 1] * z[k - 1];
  for (int i = k - 2; i >= 0; --i) {
    z[i] += beta[i] / d[i] * z[i + 1];
    norm2 += z[i] * z[i];
  }
  return std::fabs(z[k - 1]) / std::sqrt(norm2);
}

}  // namespace

double LargestTridiagonalEigenvalue(const double* alpha, const double* beta, int k, double upper,
                                    double* last_component, double* work) {
  // p_i(x) = det(x I - T_i) of the leading i x i block: p_i = (x - a_i) p_{i-1} - b_{i-1}^2
  // p_{i-2}. With r_i = p_i / p_{i-1} (r_0 = x - a_0) and s_i = r_i':
  //   r_i = (x - a_i) - b_{i-1}^2 / r_{i-1},   s_i = 1 + b_{i-1}^2 s_{i-1} / r_{i-1}^2,
  // and p_k' / p_k = sum_i s_i / r_i, so Newton's step is x <- x - 1 / sum_i s_i / r_i.
  // x lies above the largest root exactly when every r_i > 0 (the pivots of x I - T; Sturm).
  // Newton from above decreases monotonically to the root; where it is slow (several
  // Ritz values close together, far below x) the midpoint of the bracket is tried instead,
  // so the bracket at least halves every other evaluation.
  double lo = alpha[0];  // every diagonal entry is a Rayleigh quotient of T: <= the root
  for (int i = 1; i < k; ++i) lo = std::fmax(lo, alpha[i]);
  double hi = std::fmax(upper, lo);
  hi += 1e-12 * std::fabs(hi) + 1e-300;  // strictly above the root
  // Whether x is above the root, and if so p_k'(x) / p_k(x) in *slope.
  auto above = [&](double x, double* slope) {
    double r = x - alpha[0], s = 1.0;
    if (!(r > 0.0)) return false;
    double sum = s / r;
    for (int i = 1; i < k; ++i) {
      const double b2 = beta[i - 1] * beta[i - 1];
      const double r_next = (x - alpha[i]) - b2 / r;
      s = 1.0 + b2 * s / (r * r);
      r = r_next;
      if (!(r > 0.0)) return false;
      sum += s / r;
    }
    *slope = sum;
    return true;
  };
  double slope = 0.0;
  if (last_component != nullptr) *last_component = 1.0;  // unknown: the worst case
  if (!above(hi, &slope)) return hi;  // not an upper bound after all
  double x = hi;
  bool bisect = false;  // the last Newton step fell below the root by round-off
  for (int iteration = 0; iteration < 200 && hi - lo > 1e-14 * std::fabs(hi); ++iteration) {
    // (slope is p_k'/p_k at x = hi: `above` writes it only where it returns true.)
    const double newton = x - 1.0 / slope, mid = 0.5 * (lo + hi);
    const bool use_mid = bisect || !(newton < mid);
    const double trial = use_mid ? mid : std::fmax(newton, lo);
    double trial_slope = 0.0;
    if (above(trial, &trial_slope)) {
      if (!(trial < hi)) break;  // Newton's step at round-off
      hi = x = trial;
      slope = trial_slope;
      bisect = false;
    } else {
      lo = trial;
      bisect = !use_mid;
    }
  }
  if (last_component != nullptr) *last_component = LastEigenvectorComponent(alpha, beta, k, hi, work);
  return hi;
}

void LanczosStartVector(int n, double* q) {
  // A 64-bit linear congruential sequence (Knuth's MMIX constants), mapped to [-1, 1):
  // reproducible on every platform and for every thread count.
  uint64_t state = 0x9E3779B97F4A7C15ull;
  double norm2 = 0.0;
  for (int r = 0; r < n; ++r) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    q[r] = static_cast<double>(state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    norm2 += q[r] * q[r];
  }
  const double scale = 1.0 / std::sqrt(norm2);
  for (int r = 0; r < n; ++r) q[r] *= scale;
}

}  // namespace csim::solver
