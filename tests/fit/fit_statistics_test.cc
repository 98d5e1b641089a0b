// CalcFitStatistics and DescribeDirection (fit_statistics.h): standard errors that cover the
// truth over 100 noisy data sets, a covariance that matches the Monte Carlo spread of the
// estimates and the normal equations' s^2 (J^T J)^-1, parameters on bounds, and
// unidentifiable models (y = a b t, y = a b^2 t + c t^2, a parameter with no effect)
// detected and named.

#include "engine/fit/fit_statistics.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine/fit/levenberg_marquardt.h"

namespace csim::fit {
namespace {

constexpr int kSamples = 50;
constexpr double kDt = 0.1;

double Time(int i) { return kDt * i; }

// Residuals (a exp(-b t_i) - y_i) / sigma, p = (a, b); the Jacobian is checked against
// central differences in levenberg_marquardt_test.cc.
ResidualFunction ExpDecayResiduals(Eigen::VectorXd y, double sigma) {
  return [=](const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
             Eigen::MatrixXd* de_dp) {
    e->resize(kSamples);
    if (want_jacobian) de_dp->resize(kSamples, 2);
    for (int i = 0; i < kSamples; ++i) {
      const double E = std::exp(-p[1] * Time(i));
      (*e)[i] = (p[0] * E - y[i]) / sigma;
      if (want_jacobian) de_dp->row(i) << E / sigma, -p[0] * Time(i) * E / sigma;
    }
    return true;
  };
}

// y_i = a exp(-b t_i) + sigma N(0, 1).
Eigen::VectorXd NoisyDecay(const Eigen::Vector2d& truth, double sigma, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  Eigen::VectorXd y(kSamples);
  for (int i = 0; i < kSamples; ++i) y[i] = truth[0] * std::exp(-truth[1] * Time(i)) + noise(rng);
  return y;
}

// Fits the noisy decay of one seed; REQUIREs convergence.
LevenbergMarquardtResult FitSeed(const Eigen::Vector2d& truth, double sigma, unsigned seed) {
  const LevenbergMarquardtResult r =
      LevenbergMarquardt(ExpDecayResiduals(NoisyDecay(truth, sigma, seed), sigma),
                         Eigen::Vector2d(1.0, 1.5));
  REQUIRE((r.status == FitStatus::kConvergedStep ||
           r.status == FitStatus::kConvergedGradient));
  return r;
}

// y(t; p) and dy/dp (n) at one sample time; Residuals: e_i = y(t_i; p) - y_i.
using Model = std::function<double(const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy)>;

ResidualFunction Residuals(Model model, Eigen::VectorXd y) {
  return [=](const Eigen::VectorXd& p, bool want_jacobian, Eigen::VectorXd* e,
             Eigen::MatrixXd* de_dp) {
    e->resize(y.size());
    if (want_jacobian) de_dp->resize(y.size(), p.size());
    Eigen::VectorXd dy;
    for (int i = 0; i < y.size(); ++i) {
      (*e)[i] = model(p, Time(i), &dy) - y[i];
      if (want_jacobian) de_dp->row(i) = dy.transpose();
    }
    return true;
  };
}

}  // namespace

TEST_CASE("Standard errors cover the truth in at least 95 of 100 noisy fits", "[fit]") {
  const Eigen::Vector2d truth(2.5, 0.7);
  const double sigma = 0.02;
  int covered[2] = {0, 0};
  double s2_sum = 0.0;
  for (unsigned seed = 1; seed <= 100; ++seed) {
    const LevenbergMarquardtResult r = FitSeed(truth, sigma, seed);
    const FitStatistics st = CalcFitStatistics(r);
    REQUIRE(st.verdict[0] == ParameterVerdict::kIdentified);
    REQUIRE(st.verdict[1] == ParameterVerdict::kIdentified);
    for (int j = 0; j < 2; ++j)
      covered[j] += std::abs(r.p[j] - truth[j]) <= 3.0 * st.standard_error_p[j];
    s2_sum += st.s2;
  }
  INFO("covered: a " << covered[0] << ", b " << covered[1] << "; mean s^2 " << s2_sum / 100);
  std::printf("fit coverage: truth within 3 se in %d (a) and %d (b) of 100 seeds, mean s^2 %.3f\n",
              covered[0], covered[1], s2_sum / 100);
  CHECK(covered[0] >= 95);
  CHECK(covered[1] >= 95);
  // The residuals are scaled by the true sigma: s^2 estimates 1.
  CHECK(s2_sum / 100 == Approx(1.0).margin(0.05));
}

TEST_CASE("The covariance matches the Monte Carlo spread of the estimates", "[fit]") {
  // 1000 seeds: the sample variance has a relative standard deviation sqrt(2/999) = 4.5 %.
  const Eigen::Vector2d truth(2.5, 0.7);
  const double sigma = 0.02;
  const int runs = 1000;
  std::vector<Eigen::Vector2d> eta(runs);
  Eigen::Matrix2d predicted = Eigen::Matrix2d::Zero();
  for (int k = 0; k < runs; ++k) {
    const LevenbergMarquardtResult r = FitSeed(truth, sigma, 1000 + k);
    eta[k] = r.p.array().log();
    predicted += CalcFitStatistics(r).covariance_eta / runs;
  }
  Eigen::Vector2d mean = Eigen::Vector2d::Zero();
  for (const Eigen::Vector2d& x : eta) mean += x / runs;
  Eigen::Matrix2d sample = Eigen::Matrix2d::Zero();
  for (const Eigen::Vector2d& x : eta) sample += (x - mean) * (x - mean).transpose() / (runs - 1);
  INFO("predicted\n" << predicted << "\nMonte Carlo\n" << sample);
  for (int j = 0; j < 2; ++j) CHECK(sample(j, j) == Approx(predicted(j, j)).epsilon(0.15));
  const double corr_mc = sample(0, 1) / std::sqrt(sample(0, 0) * sample(1, 1));
  const double corr = predicted(0, 1) / std::sqrt(predicted(0, 0) * predicted(1, 1));
  std::printf("fit Monte Carlo / predicted: var(ln a) %.3f, var(ln b) %.3f; correlation %.3f "
              "vs %.3f\n", sample(0, 0) / predicted(0, 0), sample(1, 1) / predicted(1, 1),
              corr_mc, corr);
  CHECK(corr_mc == Approx(corr).margin(0.05));
  CHECK((mean - truth.array().log().matrix()).cwiseAbs().maxCoeff() <=
        4.0 * std::sqrt(predicted.diagonal().maxCoeff() / runs));
}

TEST_CASE("The covariance equals s^2 (J^T J)^-1 in eta and, by the delta method, in p",
          "[fit]") {
  const LevenbergMarquardtResult r = FitSeed(Eigen::Vector2d(2.5, 0.7), 0.02, 7);
  const FitStatistics st = CalcFitStatistics(r);
  const int m = kSamples, n = 2;
  CHECK(st.rank == 2);
  CHECK(st.degrees_of_freedom == m - n);
  CHECK(st.s2 == Approx(r.e.squaredNorm() / (m - n)).epsilon(1e-14));
  const Eigen::MatrixXd J_eta = LogJacobian(r.de_dp, r.p);
  const Eigen::Matrix2d cov_eta = st.s2 * (J_eta.transpose() * J_eta).inverse();
  // Linearised, a fit in p gives s^2 (J_p^T J_p)^-1: the delta method is exact to first order.
  const Eigen::Matrix2d cov_p = st.s2 * (r.de_dp.transpose() * r.de_dp).inverse();
  CHECK((st.covariance_eta - cov_eta).norm() <= 1e-10 * cov_eta.norm());
  CHECK((st.covariance_p - cov_p).norm() <= 1e-10 * cov_p.norm());
  for (int j = 0; j < n; ++j) {
    CHECK(st.standard_error_p[j] == Approx(std::sqrt(cov_p(j, j))).epsilon(1e-10));
    CHECK(st.standard_error_eta[j] == Approx(st.standard_error_p[j] / r.p[j]).epsilon(1e-12));
    CHECK(st.correlation(j, j) == Approx(1.0));
  }
  CHECK(st.correlation(0, 1) ==
        Approx(cov_p(0, 1) / std::sqrt(cov_p(0, 0) * cov_p(1, 1))).epsilon(1e-10));
  CHECK(st.unidentifiable.empty());
  CHECK(st.singular_values.size() == 2);
  CHECK(st.singular_values[1] / st.singular_values[0] > 1e-3);
}

TEST_CASE("y = a b t: only a b is identified, and the direction is named", "[fit]") {
  Eigen::VectorXd y(20);
  for (int i = 0; i < 20; ++i) y[i] = 3.0 * Time(i);
  const Model model = [](const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
    *dy = Eigen::Vector2d(p[1] * t, p[0] * t);
    return p[0] * p[1] * t;
  };
  const LevenbergMarquardtResult r = LevenbergMarquardt(Residuals(model, y),
                                                        Eigen::Vector2d(1.0, 1.0));
  CHECK(r.p[0] * r.p[1] == Approx(3.0).epsilon(1e-10));
  // The step leaves the unseen direction alone: ln a - ln b keeps its start value, 0.
  CHECK(r.p[0] == Approx(r.p[1]).epsilon(1e-12));
  const FitStatistics st = CalcFitStatistics(r);
  CHECK(st.rank == 1);
  REQUIRE(st.unidentifiable.size() == 1);
  CHECK(st.unidentifiable[0].ratio < 1e-6);
  CHECK(DescribeDirection(st.unidentifiable[0].log_direction, {"a", "b"}) == "0.71 a - 0.71 b");
  CHECK(st.verdict[0] == ParameterVerdict::kUnidentifiable);
  CHECK(st.verdict[1] == ParameterVerdict::kUnidentifiable);
  CHECK(std::isinf(st.standard_error_p[0]));
  CHECK(std::isnan(st.correlation(0, 1)));
}

TEST_CASE("y = a b^2 t + c t^2: the exponents name the direction, c stays identified",
          "[fit]") {
  // Like (k, tau_d) when only zeta = tau_d sqrt(k) / 2 is seen: ln a + 2 ln b is identified,
  // the direction (2, -1) / sqrt(5) in (ln a, ln b) is not.
  Eigen::VectorXd y(30);
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0.0, 0.01);
  for (int i = 0; i < 30; ++i) y[i] = 2.0 * Time(i) + 0.5 * Time(i) * Time(i) + noise(rng);
  const Model model = [](const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
    *dy = Eigen::Vector3d(p[1] * p[1] * t, 2.0 * p[0] * p[1] * t, t * t);
    return p[0] * p[1] * p[1] * t + p[2] * t * t;
  };
  const LevenbergMarquardtResult r =
      LevenbergMarquardt(Residuals(model, y), Eigen::Vector3d(1.0, 1.0, 1.0));
  const FitStatistics st = CalcFitStatistics(r);
  REQUIRE(st.unidentifiable.size() == 1);
  CHECK(DescribeDirection(st.unidentifiable[0].log_direction, {"k", "tau_d", "c"}) ==
        "0.89 k - 0.45 tau_d");
  CHECK(st.verdict[0] == ParameterVerdict::kUnidentifiable);
  CHECK(st.verdict[1] == ParameterVerdict::kUnidentifiable);
  CHECK(st.verdict[2] == ParameterVerdict::kIdentified);
  CHECK(std::isfinite(st.standard_error_p[2]));
  CHECK(std::abs(r.p[2] - 0.5) <= 4.0 * st.standard_error_p[2]);
  CHECK(st.degrees_of_freedom == 30 - 2);
  // Its standard error is that of the identifiable two-parameter model y = q t + c t^2.
  const Model reduced = [](const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
    *dy = Eigen::Vector2d(t, t * t);
    return p[0] * t + p[1] * t * t;
  };
  const FitStatistics st2 = CalcFitStatistics(
      LevenbergMarquardt(Residuals(reduced, y), Eigen::Vector2d(1.0, 1.0)));
  CHECK(st.standard_error_p[2] == Approx(st2.standard_error_p[1]).epsilon(1e-6));
}

TEST_CASE("A parameter without effect is unidentifiable alone", "[fit]") {
  const Model model = [](const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
    *dy = Eigen::Vector3d(std::exp(-p[1] * t), -p[0] * t * std::exp(-p[1] * t), 0.0);
    return p[0] * std::exp(-p[1] * t);
  };
  Eigen::VectorXd y(kSamples);
  for (int i = 0; i < kSamples; ++i) y[i] = 2.5 * std::exp(-0.7 * Time(i));
  const LevenbergMarquardtResult r =
      LevenbergMarquardt(Residuals(model, y), Eigen::Vector3d(1.0, 1.5, 4.0));
  CHECK(r.p[2] == 4.0);
  CHECK(r.p[0] == Approx(2.5).epsilon(1e-10));
  // y is fitted exactly, so s^2 = 0 and the identified standard errors are 0.
  const FitStatistics st = CalcFitStatistics(r);
  REQUIRE(st.unidentifiable.size() == 1);
  CHECK(DescribeDirection(st.unidentifiable[0].log_direction, {"a", "b", "c"}) == "1.00 c");
  CHECK(st.verdict[0] == ParameterVerdict::kIdentified);
  CHECK(st.verdict[2] == ParameterVerdict::kUnidentifiable);
}

TEST_CASE("A parameter held by a bound is fixed in the statistics", "[fit]") {
  const double sigma = 0.02;
  const Eigen::VectorXd y = NoisyDecay(Eigen::Vector2d(2.5, 0.7), sigma, 3);
  const ResidualFunction f = ExpDecayResiduals(y, sigma);
  const LevenbergMarquardtResult r =
      LevenbergMarquardt(f, Eigen::Vector2d(1.0, 0.3), ParameterBounds{{}, {10.0, 0.5}, {}});
  REQUIRE(r.bound_state[1] == BoundState::kAtUpper);
  const FitStatistics st = CalcFitStatistics(r);
  CHECK(st.num_free == 1);
  CHECK(st.rank == 1);
  CHECK(st.degrees_of_freedom == kSamples - 1);
  CHECK(st.verdict[0] == ParameterVerdict::kIdentified);
  CHECK(st.verdict[1] == ParameterVerdict::kAtBound);
  CHECK(std::isnan(st.standard_error_p[1]));
  // a alone: s^2 / sum (de/da)^2.
  const double s2 = r.e.squaredNorm() / (kSamples - 1);
  CHECK(st.standard_error_p[0] ==
        Approx(std::sqrt(s2 / r.de_dp.col(0).squaredNorm())).epsilon(1e-10));
}

TEST_CASE("DescribeDirection writes a signed combination with two decimals", "[fit]") {
  const std::vector<std::string> names = {"stiffness", "dissipation_time", "friction"};
  CHECK(DescribeDirection(Eigen::Vector3d(0.7071, -0.7071, 0.0), names) ==
        "0.71 stiffness - 0.71 dissipation_time");
  CHECK(DescribeDirection(Eigen::Vector3d(-0.6, 0.001, 0.8), names) ==
        "-0.60 stiffness + 0.80 friction");
  CHECK(DescribeDirection(Eigen::Vector3d(0.0, 0.0, 0.0), names) == "0");
  CHECK(std::string(ParameterVerdictName(ParameterVerdict::kLowerBoundOnly)) ==
        "lower bound only");
}

}  // namespace csim::fit

namespace csim::fit {

TEST_CASE("A linear parameter's standard error is in its own unit", "[fit]") {
  // y = a t + c with a fitted in ln a and c (an offset, any sign) as it is: the covariance
  // in p equals s^2 (J_p^T J_p)^-1 of the plain linear regression, whatever the scales.
  Eigen::VectorXd y(kSamples);
  for (int i = 0; i < kSamples; ++i) y[i] = 2.0 * Time(i) - 0.5 + 0.01 * std::sin(7.0 * i);
  const Model line = [](const Eigen::VectorXd& p, double t, Eigen::VectorXd* dy) {
    if (dy != nullptr) *dy = Eigen::Vector2d(t, 1.0);
    return p[0] * t + p[1];
  };
  ParameterBounds space;
  space.scale = {ParameterScale::kLog, ParameterScale::kLinear};
  const LevenbergMarquardtResult r = LevenbergMarquardt(Residuals(line, y),
                                                        Eigen::Vector2d(1.0, 0.0), space);
  REQUIRE((r.status == FitStatus::kConvergedStep ||
           r.status == FitStatus::kConvergedGradient));
  CHECK(r.p[1] == Approx(-0.5).margin(0.01));
  const FitStatistics st = CalcFitStatistics(r);
  const Eigen::Matrix2d cov_p = st.s2 * (r.de_dp.transpose() * r.de_dp).inverse();
  CHECK((st.covariance_p - cov_p).norm() <= 1e-10 * cov_p.norm());
  CHECK(st.standard_error_p[1] == Approx(std::sqrt(cov_p(1, 1))).epsilon(1e-10));
  CHECK(st.standard_error_eta[1] == Approx(st.standard_error_p[1]).epsilon(1e-14));
  CHECK(st.standard_error_eta[0] == Approx(st.standard_error_p[0] / r.p[0]).epsilon(1e-12));
}

}  // namespace csim::fit
