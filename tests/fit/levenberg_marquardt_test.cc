// LevenbergMarquardt (levenberg_marquardt.h) on analytic models with known parameters:
// exponential decay, a damped oscillator, Rosenbrock's curved valley (noise-free data:
// recovered to 1e-10 relative), bounds, evaluation failures and the stopping rules. Each test
// model's analytic Jacobian is first checked against central differences, so that a recovery
// test tests the fit and not the model.

#include "engine/fit/levenberg_marquardt.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

namespace csim::fit {
namespace {

// y(t; p) and dy/dp (n) at one sample time.
using Model = std::function<double(const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy)>;

// y = a exp(-b t), p = (a, b).
double ExpDecay(const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
  const double E = std::exp(-p[1] * t);
  if (dy != nullptr) *dy = Eigen::Vector2d(E, -p[0] * t * E);
  return p[0] * E;
}

// y = A exp(-zeta w t) cos(w_d t), w_d = w sqrt(1 - zeta^2), p = (A, zeta, w).
double DampedOscillator(const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
  const double A = p[0], zeta = p[1], w = p[2];
  const double root = std::sqrt(1.0 - zeta * zeta);
  const double wd = w * root;
  const double E = std::exp(-zeta * w * t), c = std::cos(wd * t), s = std::sin(wd * t);
  if (dy != nullptr) {
    const double dwd_dzeta = -w * zeta / root, dwd_dw = root;
    *dy = Eigen::Vector3d(E * c, A * E * (-w * t * c - s * t * dwd_dzeta),
                          A * E * (-zeta * t * c - s * t * dwd_dw));
  }
  return A * E * c;
}

// Samples t_i = dt i, i < count.
std::vector<double> Times(int count, double dt) {
  std::vector<double> t(count);
  for (int i = 0; i < count; ++i) t[i] = dt * i;
  return t;
}

// Residuals e_i = (y(t_i; p) - y_i) / sigma of a model against data.
ResidualFunction Residuals(Model model, std::vector<double> t, Eigen::VectorXd y,
                           double sigma = 1.0) {
  return [=](const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
             Eigen::MatrixXd* de_dp) {
    const int m = static_cast<int>(t.size());
    e->resize(m);
    if (want_jacobian) de_dp->resize(m, p.size());
    Eigen::VectorXd dy;
    for (int i = 0; i < m; ++i) {
      (*e)[i] = (model(p, t[i], want_jacobian ? &dy : nullptr) - y[i]) / sigma;
      if (want_jacobian) de_dp->row(i) = dy.transpose() / sigma;
    }
    return true;
  };
}

Eigen::VectorXd Sample(const Model& model, const Eigen::VectorXd& p,
                       const std::vector<double>& t) {
  Eigen::VectorXd y(t.size());
  for (size_t i = 0; i < t.size(); ++i) y[i] = model(p, t[i], nullptr);
  return y;
}

// Rosenbrock's valley shifted into p > 0: x = p - 2, e = (10 (x2 - x1^2), 1 - x1); minimum
// at p = (3, 3), the classic start x = (-1.2, 1) at p = (0.8, 3).
bool Rosenbrock(const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
                Eigen::MatrixXd* de_dp) {
  const double x1 = p[0] - 2.0, x2 = p[1] - 2.0;
  *e = Eigen::Vector2d(10.0 * (x2 - x1 * x1), 1.0 - x1);
  if (want_jacobian) {
    de_dp->resize(2, 2);
    *de_dp << -20.0 * x1, 10.0, -1.0, 0.0;
  }
  return true;
}

double MaxRelativeError(const Eigen::VectorXd& p, const Eigen::VectorXd& truth) {
  return (p - truth).cwiseQuotient(truth).cwiseAbs().maxCoeff();
}

// Central differences of e in p (h relative) and in eta = ln p against the analytic
// Jacobians: the model's de/dp and LogJacobian's de/deta.
void CheckJacobian(const ResidualFunction& f, const Eigen::VectorXd& p) {
  Eigen::VectorXd e, ep, em;
  Eigen::MatrixXd J;
  REQUIRE(f(p, true, &e, &J));
  const Eigen::MatrixXd J_eta = LogJacobian(J, p);
  const double scale = J.cwiseAbs().maxCoeff();
  const double scale_eta = J_eta.cwiseAbs().maxCoeff();
  for (int j = 0; j < p.size(); ++j) {
    const double h = 1e-6 * p[j];
    Eigen::VectorXd pp = p, pm = p;
    pp[j] += h;
    pm[j] -= h;
    f(pp, false, &ep, nullptr);
    f(pm, false, &em, nullptr);
    CHECK(((ep - em) / (2 * h) - J.col(j)).cwiseAbs().maxCoeff() <= 1e-7 * scale);
    pp[j] = p[j] * std::exp(1e-6);
    pm[j] = p[j] * std::exp(-1e-6);
    f(pp, false, &ep, nullptr);
    f(pm, false, &em, nullptr);
    CHECK(((ep - em) / 2e-6 - J_eta.col(j)).cwiseAbs().maxCoeff() <= 1e-7 * scale_eta);
  }
}

bool Converged(FitStatus s) {
  return s == FitStatus::kConvergedStep || s == FitStatus::kConvergedGradient;
}

// Accepted trials lower the cost; rejected ones leave it; rho > 0 exactly when accepted.
void CheckHistory(const LevenbergMarquardtResult& r, double start_cost) {
  double cost = start_cost;
  for (const LevenbergMarquardtIteration& it : r.history) {
    if (it.accepted) {
      CHECK(it.rho > 0.0);
      CHECK(it.cost < cost);
    } else {
      CHECK(it.cost == cost);
      CHECK(!(it.rho > 0.0));
    }
    cost = it.cost;
  }
  CHECK(static_cast<int>(r.history.size()) == r.iterations);
}

// One line per recovery (as the design note quotes them).
void Print(const char* name, const LevenbergMarquardtResult& r, const Eigen::VectorXd& truth) {
  int rejected = 0;
  for (const LevenbergMarquardtIteration& it : r.history) rejected += !it.accepted;
  std::printf("fit %-22s %-20s trials %2d (rejected %d), Jacobians %2d, max rel. error %.1e\n",
              name, FitStatusName(r.status), r.iterations, rejected, r.jacobian_evaluations,
              MaxRelativeError(r.p, truth));
}

double Cost(const ResidualFunction& f, const Eigen::VectorXd& p) {
  Eigen::VectorXd e;
  f(p, false, &e, nullptr);
  return 0.5 * e.squaredNorm();
}

}  // namespace

TEST_CASE("The test models' analytic Jacobians match central differences", "[fit]") {
  const std::vector<double> t = Times(50, 0.1);
  const Eigen::Vector2d ab(2.5, 0.7);
  CheckJacobian(Residuals(ExpDecay, t, Sample(ExpDecay, ab, t)), Eigen::Vector2d(1.3, 0.4));
  const Eigen::Vector3d osc(1.5, 0.1, 6.0);
  CheckJacobian(Residuals(DampedOscillator, Times(200, 0.025), Eigen::VectorXd::Zero(200)),
                osc);
  CheckJacobian(Rosenbrock, Eigen::Vector2d(0.8, 3.0));
}

TEST_CASE("LM recovers an exponential decay from noise-free data", "[fit]") {
  const std::vector<double> t = Times(50, 0.1);
  const Eigen::Vector2d truth(2.5, 0.7);
  const ResidualFunction f = Residuals(ExpDecay, t, Sample(ExpDecay, truth, t));
  const Eigen::Vector2d p0(1.0, 1.5);
  const LevenbergMarquardtResult r = LevenbergMarquardt(f, p0);
  Print("exponential decay", r, truth);
  INFO(FitStatusName(r.status) << ", " << r.iterations << " iterations");
  CHECK(Converged(r.status));
  CHECK(MaxRelativeError(r.p, truth) <= 1e-10);
  CHECK(r.iterations <= 15);
  CHECK(r.jacobian_evaluations <= r.iterations + 1);
  CHECK(r.cost == Approx(0.5 * r.e.squaredNorm()));
  CheckHistory(r, Cost(f, p0));
}

TEST_CASE("LM's step test is relative in p: the same fit in other units", "[fit]") {
  // The decay above with t in microseconds' worth of seconds: b = 7e5 1/s, a = 2.5e-3. In
  // eta the problem is the same one shifted, so the same iterations and accuracy.
  std::vector<double> t = Times(50, 1e-7);
  const Eigen::Vector2d truth(2.5e-3, 7e5);
  const ResidualFunction f = Residuals(ExpDecay, t, Sample(ExpDecay, truth, t), 1e-3);
  const LevenbergMarquardtResult r = LevenbergMarquardt(f, Eigen::Vector2d(1e-3, 1.5e6));
  Print("decay, other units", r, truth);
  CHECK(Converged(r.status));
  CHECK(MaxRelativeError(r.p, truth) <= 1e-10);
  CHECK(r.iterations <= 15);
}

TEST_CASE("LM recovers a damped oscillator", "[fit]") {
  const std::vector<double> t = Times(200, 0.025);
  const Eigen::Vector3d truth(1.5, 0.1, 6.0);
  const ResidualFunction f = Residuals(DampedOscillator, t, Sample(DampedOscillator, truth, t));
  const LevenbergMarquardtResult r = LevenbergMarquardt(f, Eigen::Vector3d(1.0, 0.2, 5.5));
  Print("damped oscillator", r, truth);
  INFO(FitStatusName(r.status) << ", " << r.iterations << " iterations");
  CHECK(Converged(r.status));
  CHECK(MaxRelativeError(r.p, truth) <= 1e-10);
  CHECK(r.iterations <= 25);
}

TEST_CASE("LM follows Rosenbrock's curved valley to its minimum", "[fit]") {
  const Eigen::Vector2d p0(0.8, 3.0);
  LevenbergMarquardtOptions options;
  options.max_iterations = 100;
  const LevenbergMarquardtResult r = LevenbergMarquardt(Rosenbrock, p0, {}, options);
  Print("Rosenbrock", r, Eigen::Vector2d(3.0, 3.0));
  INFO(FitStatusName(r.status) << ", " << r.iterations << " iterations");
  CHECK(Converged(r.status));
  CHECK(MaxRelativeError(r.p, Eigen::Vector2d(3.0, 3.0)) <= 1e-10);
  CheckHistory(r, Cost(Rosenbrock, p0));
}

TEST_CASE("LM stops at its iteration limit", "[fit]") {
  LevenbergMarquardtOptions options;
  options.max_iterations = 2;
  const LevenbergMarquardtResult r =
      LevenbergMarquardt(Rosenbrock, Eigen::Vector2d(0.8, 3.0), {}, options);
  CHECK(r.status == FitStatus::kMaxIterations);
  CHECK(r.iterations == 2);
  CHECK(r.history.size() == 2);
}

TEST_CASE("LM at an exact fit stops by the gradient without a trial", "[fit]") {
  const std::vector<double> t = Times(50, 0.1);
  const Eigen::Vector2d truth(2.5, 0.7);
  const LevenbergMarquardtResult r =
      LevenbergMarquardt(Residuals(ExpDecay, t, Sample(ExpDecay, truth, t)), truth);
  CHECK(r.status == FitStatus::kConvergedGradient);
  CHECK(r.iterations == 0);
  CHECK(r.evaluations == 1);
  CHECK(r.p == truth);
}

TEST_CASE("LM holds a parameter on a bound and fits the others", "[fit]") {
  const std::vector<double> t = Times(50, 0.1);
  const Eigen::Vector2d truth(2.5, 0.7);
  const Eigen::VectorXd y = Sample(ExpDecay, truth, t);
  std::vector<Eigen::VectorXd> visited;
  const ResidualFunction fit_f = Residuals(ExpDecay, t, y);
  const ResidualFunction f = [&](const Eigen::VectorXd& p, bool want_j, Eigen::VectorXd* e,
                                 Eigen::MatrixXd* J) {
    visited.push_back(p);
    return fit_f(p, want_j, e, J);
  };
  // a = sum y f / sum f^2 at fixed b, f = exp(-b t): the exact constrained optimum.
  auto best_a = [&](double b) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < t.size(); ++i) {
      num += y[i] * std::exp(-b * t[i]);
      den += std::exp(-2.0 * b * t[i]);
    }
    return num / den;
  };
  struct Case {
    ParameterBounds bounds;
    Eigen::Vector2d p0;
    BoundState b_state;
    double b;
  };
  const std::vector<Case> cases = {
      {{{0.0, 0.0}, {10.0, 0.5}}, {1.0, 0.3}, BoundState::kAtUpper, 0.5},
      {{{0.1, 0.9}, {}}, {1.0, 1.5}, BoundState::kAtLower, 0.9},
      {{{0.0, 0.0}, {10.0, 0.5}}, {1.0, 0.5}, BoundState::kAtUpper, 0.5},  // starts on it
      {{{1.0, 0.1}, {10.0, 10.0}}, {1.0, 1.5}, BoundState::kFree, 0.7},    // inactive
  };
  for (const Case& c : cases) {
    visited.clear();
    const LevenbergMarquardtResult r = LevenbergMarquardt(f, c.p0, c.bounds);
    INFO("b bound case " << c.b << ": " << FitStatusName(r.status));
    CHECK(Converged(r.status));
    CHECK(r.bound_state[0] == BoundState::kFree);
    CHECK(r.bound_state[1] == c.b_state);
    if (c.b_state == BoundState::kFree) {
      CHECK(MaxRelativeError(r.p, truth) <= 1e-10);
    } else {
      CHECK(r.p[1] == c.b);  // exactly on the bound
      CHECK(r.p[0] == Approx(best_a(c.b)).epsilon(1e-10));
    }
    for (const Eigen::VectorXd& p : visited) {
      for (int j = 0; j < 2; ++j) {
        if (!c.bounds.lo.empty()) CHECK(p[j] >= c.bounds.lo[j]);
        if (!c.bounds.hi.empty()) CHECK(p[j] <= c.bounds.hi[j]);
      }
    }
  }
}

TEST_CASE("LM rejects trial points where the model fails and carries on", "[fit]") {
  const std::vector<double> t = Times(50, 0.1);
  const Eigen::Vector2d truth(2.5, 0.7);
  const ResidualFunction good = Residuals(ExpDecay, t, Sample(ExpDecay, truth, t));

  SECTION("the first three trials fail, one by returning NaN") {
    int calls = 0;
    const ResidualFunction f = [&](const Eigen::VectorXd& p, bool want_j, Eigen::VectorXd* e,
                                   Eigen::MatrixXd* J) {
      ++calls;
      if (calls == 2 || calls == 3) return false;
      const bool ok = good(p, want_j, e, J);
      if (calls == 4) (*e)[7] = std::nan("");
      return ok;
    };
    const LevenbergMarquardtResult r = LevenbergMarquardt(f, Eigen::Vector2d(1.0, 1.5));
    CHECK(Converged(r.status));
    CHECK(MaxRelativeError(r.p, truth) <= 1e-10);
    REQUIRE(r.history.size() >= 4);
    for (int i = 0; i < 3; ++i) {
      CHECK(r.history[i].evaluation_failed);
      CHECK(!r.history[i].accepted);
      CHECK(std::isnan(r.history[i].trial_cost));
      CHECK(r.history[i + 1].lambda > r.history[i].lambda);
    }
  }
  SECTION("the model fails below b = 0.6: the first Gauss-Newton steps land there") {
    const ResidualFunction f = [&](const Eigen::VectorXd& p, bool want_j, Eigen::VectorXd* e,
                                   Eigen::MatrixXd* J) {
      return p[1] >= 0.6 && good(p, want_j, e, J);
    };
    const LevenbergMarquardtResult r = LevenbergMarquardt(f, Eigen::Vector2d(1.0, 1.5));
    int failed = 0;
    for (const LevenbergMarquardtIteration& it : r.history) failed += it.evaluation_failed;
    INFO(failed << " failed trials of " << r.iterations);
    Print("decay, fails b < 0.6", r, truth);
    CHECK(failed > 0);
    CHECK(Converged(r.status));
    CHECK(MaxRelativeError(r.p, truth) <= 1e-10);
  }
  SECTION("the start fails") {
    const ResidualFunction f = [](const Eigen::VectorXd&, bool, Eigen::VectorXd*,
                                  Eigen::MatrixXd*) { return false; };
    const LevenbergMarquardtResult r = LevenbergMarquardt(f, Eigen::Vector2d(1.0, 1.5));
    CHECK(r.status == FitStatus::kFailedEvaluation);
    CHECK(r.iterations == 0);
    CHECK(r.p == Eigen::Vector2d(1.0, 1.5));
    CHECK(std::isnan(r.cost));
  }
  SECTION("every trial fails: the fit ends as failed, not converged") {
    const Eigen::Vector2d p0(1.0, 1.5);
    const ResidualFunction f = [&](const Eigen::VectorXd& p, bool want_j, Eigen::VectorXd* e,
                                   Eigen::MatrixXd* J) {
      return p == p0 && good(p, want_j, e, J);
    };
    const LevenbergMarquardtResult r = LevenbergMarquardt(f, p0);
    CHECK(r.status == FitStatus::kFailedEvaluation);
    CHECK(r.p == p0);
    CHECK(r.iterations <= 50);
  }
}

}  // namespace csim::fit

namespace csim::fit {
namespace {

// y = a exp(-b t) + c: a, b positive (log), c an offset of either sign (linear).
double DecayWithOffset(const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
  const double E = std::exp(-p[1] * t);
  if (dy != nullptr) *dy = Eigen::Vector3d(E, -p[0] * t * E, 1.0);
  return p[0] * E + p[2];
}

}  // namespace

TEST_CASE("LM fits a signed parameter linearly next to log ones", "[fit]") {
  // The offset's truth is negative and it starts at 0: neither is possible in ln p.
  const std::vector<double> t = Times(50, 0.1);
  const Eigen::Vector3d truth(2.5, 0.7, -0.3);
  const ResidualFunction f = Residuals(DecayWithOffset, t, Sample(DecayWithOffset, truth, t));
  CheckJacobian(Residuals(DecayWithOffset, t, Sample(DecayWithOffset, truth, t)),
                Eigen::Vector3d(1.3, 0.4, 0.2));
  ParameterBounds space;
  space.scale = {ParameterScale::kLog, ParameterScale::kLog, ParameterScale::kLinear};
  const LevenbergMarquardtResult r = LevenbergMarquardt(f, Eigen::Vector3d(1.0, 1.5, 0.0), space);
  Print("decay with an offset", r, truth);
  CHECK(Converged(r.status));
  CHECK((r.p - truth).cwiseQuotient(truth).cwiseAbs().maxCoeff() <= 1e-10);
  CHECK(r.iterations <= 20);
  REQUIRE(r.scale.size() == 3);
  CHECK(r.scale[2] == ParameterScale::kLinear);
  // The linear column is de/dp itself, the log ones p_j de/dp_j.
  const Eigen::MatrixXd J = FitJacobian(r.de_dp, r.p, r.scale);
  CHECK(J.col(2) == r.de_dp.col(2));
  CHECK(J.col(0) == r.de_dp.col(0) * r.p[0]);

  SECTION("a bound on the linear parameter holds it, below zero") {
    ParameterBounds bounded = space;
    bounded.lo = {0.0, 0.0, -0.2};
    const double inf = std::numeric_limits<double>::infinity();
    bounded.hi = {inf, inf, 1.0};
    const LevenbergMarquardtResult b =
        LevenbergMarquardt(f, Eigen::Vector3d(1.0, 1.5, 0.0), bounded);
    CHECK(Converged(b.status));
    CHECK(b.p[2] == -0.2);
    CHECK(b.bound_state[2] == BoundState::kAtLower);
  }
}

}  // namespace csim::fit

namespace csim::fit {
namespace {

// e = ln p - 50 is linear in eta = ln p: Gauss-Newton's first step would be the whole 50 in
// ln p. The trust region (max_log_step, ln 10) takes it in factor-of-10 steps instead, each
// trial accepted with rho = 1, and still lands on p = e^50.
TEST_CASE("LevenbergMarquardt moves a log parameter by at most max_log_step a trial",
          "[fit]") {
  const ResidualFunction model = [](const Eigen::VectorXd& p, bool want_jacobian,
                                    Eigen::VectorXd* e, Eigen::MatrixXd* de_dp) {
    *e = Eigen::VectorXd::Constant(1, std::log(p[0]) - 50.0);
    if (want_jacobian) *de_dp = Eigen::MatrixXd::Constant(1, 1, 1.0 / p[0]);
    return true;
  };
  LevenbergMarquardtOptions options;
  const LevenbergMarquardtResult r =
      LevenbergMarquardt(model, Eigen::VectorXd::Ones(1), ParameterBounds{}, options);
  CHECK(r.status != FitStatus::kMaxIterations);
  CHECK(std::abs(std::log(r.p[0]) - 50.0) <= 1e-9);
  int full_length = 0;
  for (const LevenbergMarquardtIteration& it : r.history) {
    CHECK(it.step_norm <= options.max_log_step * (1 + 1e-12));
    full_length += it.step_norm >= 0.999 * options.max_log_step;
  }
  CHECK(full_length >= 20);  // 50 / ln 10 = 21.7 steps of the full length
  // Without the bound the same fit takes the whole step at once.
  options.max_log_step = std::numeric_limits<double>::infinity();
  const LevenbergMarquardtResult free =
      LevenbergMarquardt(model, Eigen::VectorXd::Ones(1), ParameterBounds{}, options);
  REQUIRE_FALSE(free.history.empty());
  CHECK(free.history.front().step_norm > 45.0);
}

}  // namespace
}  // namespace csim::fit
