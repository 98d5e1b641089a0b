// engine/control/cubic_slopes.h against slopes worked out by hand from the formulas of
// docs/design/trajectories-and-signals.md §2-§3, and the C2 spline against an independent
// solve of the textbook system in second derivatives (moments), with a dense LU.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include <Eigen/Dense>

#include "engine/control/cubic_slopes.h"

namespace csim::control {
namespace {

using Catch::Matchers::WithinAbs;

TEST_CASE("control pchip slopes: interior slopes are the weighted harmonic mean of the "
          "secants, zero at an extremum",
          "[control][pchip]") {
  // h = {1, 2, 1}, delta = {2, 0.5, 2}.
  // d_1: weights h0 + 2 h1 = 5 (on delta_0) and 2 h0 + h1 = 4 (on delta_1):
  //      d_1 = 9 / (5 / 2 + 4 / 0.5) = 9 / 10.5 = 6/7; d_2 likewise by symmetry = 6/7.
  const std::vector<double> t = {0.0, 1.0, 3.0, 4.0};
  const std::vector<double> q = {0.0, 2.0, 3.0, 5.0};
  const std::vector<double> zero_ends = PchipSlopes(t, q, false);
  REQUIRE(zero_ends.size() == 4);
  CHECK(zero_ends[0] == 0.0);
  CHECK_THAT(zero_ends[1], WithinAbs(6.0 / 7.0, 1e-15));
  CHECK_THAT(zero_ends[2], WithinAbs(6.0 / 7.0, 1e-15));
  CHECK(zero_ends[3] == 0.0);

  // Natural ends: d_0 = ((2 h0 + h1) delta_0 - h0 delta_1) / (h0 + h1)
  //                   = ((2 + 2) 2 - 0.5) / 3 = 2.5, same sign as delta_0, delta_1 same sign:
  //                   kept; the last end is the mirror image, also 2.5.
  const std::vector<double> natural = PchipSlopes(t, q, true);
  CHECK_THAT(natural[0], WithinAbs(2.5, 1e-15));
  CHECK_THAT(natural[1], WithinAbs(6.0 / 7.0, 1e-15));
  CHECK_THAT(natural[3], WithinAbs(2.5, 1e-15));

  // A local maximum at knot 1 (secants 1 and -1): slope 0 there.
  const std::vector<double> peak = PchipSlopes({0.0, 1.0, 2.0}, {0.0, 1.0, 0.0}, true);
  CHECK(peak[1] == 0.0);
  // d_0 = ((2 + 1) 1 - 1 (-1)) / 2 = 2 <= 3 |delta_0|: kept although the secants differ.
  CHECK_THAT(peak[0], WithinAbs(2.0, 1e-15));
  CHECK_THAT(peak[2], WithinAbs(-2.0, 1e-15));
  // A flat secant makes both of its knots' interior slopes zero.
  const std::vector<double> flat = PchipSlopes({0.0, 1.0, 2.0, 3.0}, {0.0, 1.0, 1.0, 2.0}, false);
  CHECK(flat[1] == 0.0);
  CHECK(flat[2] == 0.0);
}

TEST_CASE("control pchip slopes: the natural end slope is limited to keep the end segment "
          "shape-preserving",
          "[control][pchip]") {
  // Secants 1 and -10: the three-point slope (3 * 1 + 10) / 2 = 6.5 exceeds 3 delta_0 while
  // the secants differ in sign, so it is limited to 3 delta_0 = 3.
  CHECK_THAT(PchipSlopes({0.0, 1.0, 2.0}, {0.0, 1.0, -9.0}, true)[0], WithinAbs(3.0, 1e-15));
  // Secants 1 and 4: the three-point slope (3 - 4) / 2 = -0.5 has the wrong sign: 0.
  CHECK(PchipSlopes({0.0, 1.0, 2.0}, {0.0, 1.0, 5.0}, true)[0] == 0.0);
  // Two knots: natural ends give the straight line, zero ends the smooth step.
  const std::vector<double> line = PchipSlopes({1.0, 3.0}, {2.0, 5.0}, true);
  CHECK_THAT(line[0], WithinAbs(1.5, 1e-15));
  CHECK_THAT(line[1], WithinAbs(1.5, 1e-15));
  const std::vector<double> step = PchipSlopes({1.0, 3.0}, {2.0, 5.0}, false);
  CHECK(step[0] == 0.0);
  CHECK(step[1] == 0.0);
}

TEST_CASE("control spline slopes: a clamped three-knot spline solved by hand",
          "[control][spline]") {
  // t = {0, 1, 2}, q = {0, 1, 3}, d_0 = d_2 = 0. The C2 row of knot 1:
  //   h1 d_0 + 2 (h0 + h1) d_1 + h0 d_2 = 3 (h1 delta_0 + h0 delta_1)  ->  4 d_1 = 9.
  const std::vector<double> d = SplineSlopes({0.0, 1.0, 2.0}, {0.0, 1.0, 3.0}, SplineEnd{},
                                             SplineEnd{});
  CHECK(d[0] == 0.0);
  CHECK_THAT(d[1], WithinAbs(9.0 / 4.0, 1e-15));
  CHECK(d[2] == 0.0);
  // Given end slopes enter as such: d_0 = 1, d_2 = -1: 4 d_1 = 9 - 1 - (-1) = 9.
  SplineEnd start{SplineEnd::Kind::kClamped, 1.0}, end{SplineEnd::Kind::kClamped, -1.0};
  const std::vector<double> given = SplineSlopes({0.0, 1.0, 2.0}, {0.0, 1.0, 3.0}, start, end);
  CHECK(given[0] == 1.0);
  CHECK_THAT(given[1], WithinAbs(9.0 / 4.0, 1e-15));
  CHECK(given[2] == -1.0);
}

TEST_CASE("control spline slopes: three knots not-a-knot at both ends are the parabola's "
          "slopes",
          "[control][spline]") {
  // p(t) = 2 t^2 - t + 0.5, p'(t) = 4 t - 1, at t = {0, 0.7, 2}.
  const std::vector<double> t = {0.0, 0.7, 2.0};
  std::vector<double> q;
  for (double x : t) q.push_back(2.0 * x * x - x + 0.5);
  const SplineEnd not_a_knot{SplineEnd::Kind::kNotAKnot, 0.0};
  const std::vector<double> d = SplineSlopes(t, q, not_a_knot, not_a_knot);
  for (int k = 0; k < 3; ++k) CHECK_THAT(d[k], WithinAbs(4.0 * t[k] - 1.0, 1e-13));
  // One end not-a-knot, the other clamped at the parabola's slope: the same parabola.
  const std::vector<double> mixed =
      SplineSlopes(t, q, not_a_knot, SplineEnd{SplineEnd::Kind::kClamped, 4.0 * 2.0 - 1.0});
  for (int k = 0; k < 3; ++k) CHECK_THAT(mixed[k], WithinAbs(4.0 * t[k] - 1.0, 1e-13));
}

// The C2 spline's second derivatives M_k at the knots from the textbook system: continuity
// of the first derivative at interior knots,
//   h_{k-1} M_{k-1} + 2 (h_{k-1} + h_k) M_k + h_k M_{k+1} = 6 (delta_k - delta_{k-1}),
// and per end either a clamped slope s (2 h0 M0 + h0 M1 = 6 (delta_0 - s), mirrored at the
// end) or not-a-knot (a continuous third derivative: h1 M0 - (h0 + h1) M1 + h0 M2 = 0).
// Solved densely; the slopes then follow as d_k = delta_k - h_k (2 M_k + M_{k+1}) / 6 and,
// at the last knot, d = delta + h (M_{K-2} + 2 M_{K-1}) / 6.
std::vector<double> SlopesFromMoments(const std::vector<double>& t, const std::vector<double>& q,
                                      SplineEnd start, SplineEnd end) {
  const int K = static_cast<int>(t.size());
  std::vector<double> h(K - 1), delta(K - 1);
  for (int k = 0; k + 1 < K; ++k) {
    h[k] = t[k + 1] - t[k];
    delta[k] = (q[k + 1] - q[k]) / h[k];
  }
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(K, K);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(K);
  for (int k = 1; k + 1 < K; ++k) {
    A(k, k - 1) = h[k - 1];
    A(k, k) = 2.0 * (h[k - 1] + h[k]);
    A(k, k + 1) = h[k];
    b(k) = 6.0 * (delta[k] - delta[k - 1]);
  }
  if (start.kind == SplineEnd::Kind::kClamped) {
    A(0, 0) = 2.0 * h[0];
    A(0, 1) = h[0];
    b(0) = 6.0 * (delta[0] - start.slope);
  } else {
    A(0, 0) = h[1];
    A(0, 1) = -(h[0] + h[1]);
    A(0, 2) = h[0];
  }
  const int n = K - 1;
  if (end.kind == SplineEnd::Kind::kClamped) {
    A(n, n - 1) = h[n - 1];
    A(n, n) = 2.0 * h[n - 1];
    b(n) = 6.0 * (end.slope - delta[n - 1]);
  } else {
    A(n, n - 2) = h[n - 1];
    A(n, n - 1) = -(h[n - 2] + h[n - 1]);
    A(n, n) = h[n - 2];
  }
  const Eigen::VectorXd M = A.fullPivLu().solve(b);
  std::vector<double> d(K);
  for (int k = 0; k + 1 < K; ++k) d[k] = delta[k] - h[k] * (2.0 * M(k) + M(k + 1)) / 6.0;
  d[n] = delta[n - 1] + h[n - 1] * (M(n - 1) + 2.0 * M(n)) / 6.0;
  return d;
}

TEST_CASE("control spline slopes: agree with the second-derivative formulation on random "
          "knots, for every pair of end conditions",
          "[control][spline]") {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> step(0.05, 2.0), value(-3.0, 3.0);
  const SplineEnd not_a_knot{SplineEnd::Kind::kNotAKnot, 0.0};
  for (int trial = 0; trial < 50; ++trial) {
    const int K = 4 + trial % 9;
    std::vector<double> t(K), q(K);
    t[0] = value(random);
    for (int k = 1; k < K; ++k) t[k] = t[k - 1] + step(random);
    for (double& x : q) x = value(random);
    const SplineEnd clamped{SplineEnd::Kind::kClamped, value(random)};
    for (SplineEnd start : {clamped, not_a_knot}) {
      for (SplineEnd end : {clamped, not_a_knot}) {
        const std::vector<double> d = SplineSlopes(t, q, start, end);
        const std::vector<double> reference = SlopesFromMoments(t, q, start, end);
        for (int k = 0; k < K; ++k) CHECK_THAT(d[k], WithinAbs(reference[k], 1e-9));
      }
    }
  }
}

}  // namespace
}  // namespace csim::control
