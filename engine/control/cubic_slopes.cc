#include "engine/control/cubic_slopes.h"

#include <cmath>
#include <cstddef>

#include "engine/common/check.h"

namespace csim::control {
namespace {

// Sign as -1, 0 or +1 (zero has its own sign, as in the pchip end rule of §2.2).
int Sign(double x) { return (x > 0.0) - (x < 0.0); }

std::vector<double> Steps(const std::vector<double>& t) {
  std::vector<double> h(t.size() - 1);
  for (std::size_t k = 0; k + 1 < t.size(); ++k) h[k] = t[k + 1] - t[k];
  return h;
}

std::vector<double> Secants(const std::vector<double>& q, const std::vector<double>& h) {
  std::vector<double> delta(h.size());
  for (std::size_t k = 0; k < h.size(); ++k) delta[k] = (q[k + 1] - q[k]) / h[k];
  return delta;
}

// One-sided three-point slope at an end from the two nearest steps and secants, limited so
// that the end segment stays shape-preserving (§2.2): h0, delta0 belong to the end segment.
double PchipEndSlope(double h0, double h1, double delta0, double delta1) {
  const double d = ((2.0 * h0 + h1) * delta0 - h0 * delta1) / (h0 + h1);
  if (Sign(d) != Sign(delta0)) return 0.0;
  if (Sign(delta0) != Sign(delta1) && std::abs(d) > 3.0 * std::abs(delta0)) return 3.0 * delta0;
  return d;
}

// Solves the tridiagonal system sub[i] x[i-1] + diag[i] x[i] + super[i] x[i+1] = rhs[i]
// by elimination without pivoting (Thomas). The callers' systems have been arranged so that
// no pivot is small (§3.3). Overwrites diag and rhs; the solution ends up in rhs.
void SolveTridiagonal(const std::vector<double>& sub, std::vector<double>& diag,
                      const std::vector<double>& super, std::vector<double>& rhs) {
  const std::size_t n = diag.size();
  for (std::size_t i = 1; i < n; ++i) {
    const double m = sub[i] / diag[i - 1];
    diag[i] -= m * super[i - 1];
    rhs[i] -= m * rhs[i - 1];
  }
  rhs[n - 1] /= diag[n - 1];
  for (std::size_t i = n - 1; i-- > 0;) rhs[i] = (rhs[i] - super[i] * rhs[i + 1]) / diag[i];
}

}  // namespace

std::vector<double> PchipSlopes(const std::vector<double>& t, const std::vector<double>& q,
                                bool natural_ends) {
  CSIM_CHECK(t.size() == q.size() && t.size() >= 2);
  const std::size_t K = t.size();
  const std::vector<double> h = Steps(t);
  const std::vector<double> delta = Secants(q, h);
  std::vector<double> d(K, 0.0);

  // Interior: zero at a local extremum or flat secant, else the weighted harmonic mean of
  // the neighbouring secants (§2.1).
  for (std::size_t k = 1; k + 1 < K; ++k) {
    const double a = delta[k - 1], b = delta[k];
    if (Sign(a) * Sign(b) <= 0) continue;
    const double w_before = h[k - 1] + 2.0 * h[k];  // weighs the secant before the knot
    const double w_after = 2.0 * h[k - 1] + h[k];   // weighs the secant after it
    d[k] = (w_before + w_after) / (w_before / a + w_after / b);
  }

  if (natural_ends) {
    if (K == 2) {
      d[0] = d[1] = delta[0];  // the straight line
    } else {
      d[0] = PchipEndSlope(h[0], h[1], delta[0], delta[1]);
      d[K - 1] = PchipEndSlope(h[K - 2], h[K - 3], delta[K - 2], delta[K - 3]);
    }
  }
  return d;
}

std::vector<double> SplineSlopes(const std::vector<double>& t, const std::vector<double>& q,
                                 SplineEnd start, SplineEnd end) {
  CSIM_CHECK(t.size() == q.size() && t.size() >= 3);
  const std::size_t K = t.size();
  const std::vector<double> h = Steps(t);
  const std::vector<double> delta = Secants(q, h);
  const bool start_free = start.kind == SplineEnd::Kind::kNotAKnot;
  const bool end_free = end.kind == SplineEnd::Kind::kNotAKnot;

  if (K == 3 && start_free && end_free) {
    // The parabola through the three points: p'(t) = delta_0 + c (2 t - t_0 - t_1) with the
    // second divided difference c (§3.2).
    const double c = (delta[1] - delta[0]) / (h[0] + h[1]);
    return {delta[0] - c * h[0], delta[0] + c * h[0], delta[0] + c * (h[0] + 2.0 * h[1])};
  }

  std::vector<double> sub(K, 0.0), diag(K, 0.0), super(K, 0.0), rhs(K, 0.0);
  // Interior knots: continuity of the second derivative (§3.1).
  for (std::size_t k = 1; k + 1 < K; ++k) {
    sub[k] = h[k];
    diag[k] = 2.0 * (h[k - 1] + h[k]);
    super[k] = h[k - 1];
    rhs[k] = 3.0 * (h[k] * delta[k - 1] + h[k - 1] * delta[k]);
  }

  // Start: a clamped slope, or not-a-knot at t_1 (§3.2). The not-a-knot row is then
  // subtracted from the row of knot 1, whose first entry equals its diagonal, so that d_0
  // leaves that row and the remaining pivots are safe (§3.3).
  if (start_free) {
    const double H = h[0] + h[1];
    diag[0] = h[1];
    super[0] = H;
    rhs[0] = ((3.0 * h[0] + 2.0 * h[1]) * h[1] * delta[0] + h[0] * h[0] * delta[1]) / H;
    sub[1] -= diag[0];
    diag[1] -= super[0];
    rhs[1] -= rhs[0];
  } else {
    diag[0] = 1.0;
    rhs[0] = start.slope;
  }

  // End: the mirror image, not-a-knot at t_{K-2}.
  const std::size_t n = K - 1;
  if (end_free) {
    const double H = h[n - 2] + h[n - 1];
    sub[n] = H;
    diag[n] = h[n - 2];
    rhs[n] = (h[n - 1] * h[n - 1] * delta[n - 2] +
              (2.0 * h[n - 2] + 3.0 * h[n - 1]) * h[n - 2] * delta[n - 1]) / H;
    super[n - 1] -= diag[n];
    diag[n - 1] -= sub[n];
    rhs[n - 1] -= rhs[n];
  } else {
    diag[n] = 1.0;
    rhs[n] = end.slope;
  }

  SolveTridiagonal(sub, diag, super, rhs);
  return rhs;
}

}  // namespace csim::control
