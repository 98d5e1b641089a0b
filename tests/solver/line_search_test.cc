// Line searches on one-dimensional convex functions with known minimisers.

#include "engine/solver/line_search.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace csim::solver {
namespace {

// ell(alpha) = 1/2 a (alpha - s)^2 + b softplus(c (alpha - s)) style convex test function:
// a quadratic with minimiser s plus a smooth convex kink of weight b at alpha = k.
class TestFunction final : public LineSearchFunction {
 public:
  TestFunction(double a, double s, double b, double k) : a_(a), s_(s), b_(b), k_(k) {}
  void Eval(double alpha, double* ell, double* d1, double* d2) override {
    // softplus(x) = log(1 + e^{20 x}) / 20: convex, derivative sigmoid(20 x).
    const double x = 20.0 * (alpha - k_);
    const double sp = (x > 30 ? x : std::log1p(std::exp(x))) / 20.0;
    const double sig = 1.0 / (1.0 + std::exp(-x));
    *ell = 0.5 * a_ * (alpha - s_) * (alpha - s_) + b_ * sp;
    *d1 = a_ * (alpha - s_) + b_ * sig;
    if (d2 != nullptr) *d2 = a_ + b_ * 20.0 * sig * (1.0 - sig);
  }
  double ell(double alpha) {
    double e, d;
    Eval(alpha, &e, &d, nullptr);
    return e;
  }
  double d1(double alpha) {
    double e, d;
    Eval(alpha, &e, &d, nullptr);
    return d;
  }

 private:
  double a_, s_, b_, k_;
};

TEST_CASE("Exact line search finds the minimiser to the requested accuracy", "[solver]") {
  ExactLineSearchParameters p;
  for (double s : {0.2, 0.7, 1.0, 1.3}) {
    TestFunction f(2.0, s, 0.5, 0.6);
    const LineSearchResult r = ExactLineSearch(f, f.ell(0), f.d1(0), p, 1e-30, 1e-15);
    REQUIRE(r.ok);
    CHECK(std::abs(f.d1(r.alpha)) <= 1e-7 * std::abs(f.d1(0)));
    CHECK(r.evaluations < 20);
  }
}

// A stiff kink: ell' = -1 below a, -1 + K (alpha - a) above, K = 1e12 (a near-rigid joint
// limit engaging along the direction). The minimiser a + 1/K is a machine-precision root:
// between neighbouring doubles near it ell' changes by K ulp(1/3) = 5.6e-5, far more than
// f_tolerance = 1e-8 of |ell'(0)| = 1, so no double meets that test.
class StiffKink final : public LineSearchFunction {
 public:
  static constexpr double kA = 1.0 / 3.0, kK = 1e12;
  void Eval(double alpha, double* ell, double* d1, double* d2) override {
    const double over = std::max(0.0, alpha - kA);
    *ell = -alpha + 0.5 * kK * over * over;
    *d1 = -1.0 + kK * over;
    if (d2 != nullptr) *d2 = over > 0.0 ? kK : 0.0;
  }
};

TEST_CASE("Exact line search stops at a root resolved to machine precision", "[solver]") {
  // The bracket shrinks to two adjacent doubles around a + 1/K; the search must accept
  // there. A step tolerance relative to the initial guess -ell'(0) / ell''(alpha_max) = 1/K
  // lies below their gap, so a search that waited for it would run out of iterations.
  StiffKink f;
  const LineSearchResult r = ExactLineSearch(f, 0.0, -1.0, {}, 1e-30, 1e-15);
  INFO(r.failure);
  REQUIRE(r.ok);
  const double root = StiffKink::kA + 1.0 / StiffKink::kK;
  CHECK(std::abs(r.alpha - root) <= 8 * std::numeric_limits<double>::epsilon() * root);
  CHECK(r.evaluations <= 100);
}

TEST_CASE("Exact line search returns alpha_max when still descending", "[solver]") {
  TestFunction f(1.0, 3.0, 0.0, 0.0);
  const LineSearchResult r = ExactLineSearch(f, f.ell(0), f.d1(0), {}, 1e-30, 1e-15);
  REQUIRE(r.ok);
  CHECK(r.alpha == 1.5);
}

TEST_CASE("Line searches reject a non-descent direction", "[solver]") {
  TestFunction f(1.0, -1.0, 0.0, 0.0);
  CHECK_FALSE(ExactLineSearch(f, f.ell(0), f.d1(0), {}, 1e-30, 1e-15).ok);
  CHECK_FALSE(BacktrackingLineSearch(f, f.ell(0), f.d1(0), {}, 1e-13).ok);
}

TEST_CASE("Backtracking line search satisfies Armijo", "[solver]") {
  BacktrackingLineSearchParameters p;
  for (double s : {0.05, 0.4, 1.0, 2.0}) {
    TestFunction f(2.0, s, 0.5, 0.6);
    const LineSearchResult r = BacktrackingLineSearch(f, f.ell(0), f.d1(0), p, 1e-13);
    REQUIRE(r.ok);
    CHECK(f.ell(r.alpha) < f.ell(0) + p.armijo_c * r.alpha * f.d1(0));
  }
  // With a single trial, a minimiser far below alpha_max cannot be accepted.
  p.max_iterations = 1;
  TestFunction f(2.0, 0.05, 0.0, 0.0);
  const LineSearchResult r = BacktrackingLineSearch(f, f.ell(0), f.d1(0), p, 1e-13);
  CHECK_FALSE(r.ok);
  CHECK(std::string(r.failure).find("Armijo") != std::string::npos);
}

}  // namespace
}  // namespace csim::solver
