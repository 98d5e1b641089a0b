// The Lanczos estimate of lambda_max (lanczos_extremes.h) against Eigen's dense symmetric
// eigensolver: the tridiagonal root finder (and the eigenvector entry of the Ritz residual)
// on random and clustered spectra, the iteration on
// SPD matrices smaller and larger than its iteration budget, its one-sidedness (a lower bound
// of lambda_max at every budget), and no allocation once reserved.

#include "engine/solver/lanczos_extremes.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

double DenseLargest(const MatrixXd& M) {
  return Eigen::SelfAdjointEigenSolver<MatrixXd>(M, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
}

// A random SPD matrix Q diag(lambda) Q^T with eigenvalues spread log-uniformly over
// [1, condition].
MatrixXd RandomSpd(int n, double condition, std::mt19937* rng) {
  std::normal_distribution<double> normal;
  MatrixXd X(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) X(i, j) = normal(*rng);
  const Eigen::HouseholderQR<MatrixXd> qr(X);
  const MatrixXd Q = qr.householderQ();
  VectorXd lambda(n);
  for (int i = 0; i < n; ++i)
    lambda[i] = std::pow(condition, n > 1 ? static_cast<double>(i) / (n - 1) : 0.0);
  return Q * lambda.asDiagonal() * Q.transpose();
}

LanczosResult Largest(const MatrixXd& M, const LanczosParameters& parameters) {
  LanczosScratch scratch;
  scratch.Reserve(static_cast<int>(M.rows()), parameters.max_iterations);
  const int n = static_cast<int>(M.rows());
  auto apply = [&](const double* x, double* y) {
    Eigen::Map<VectorXd>(y, n).noalias() = M * Eigen::Map<const VectorXd>(x, n);
  };
  return LanczosLargestEigenvalue(n, apply, parameters, &scratch);
}

TEST_CASE("the largest eigenvalue of a tridiagonal matrix and its eigenvector's last entry",
          "[solver][lanczos]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int k : {1, 2, 3, 7, 20, 60}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> alpha(k), beta(std::max(k - 1, 1));
      for (double& a : alpha) a = 10.0 * uniform(rng);
      for (double& b : beta) b = uniform(rng);
      if (trial % 4 == 0) {  // a clustered top: nearly equal, nearly decoupled entries
        for (double& a : alpha) a = 5.0 + 1e-9 * uniform(rng);
        for (double& b : beta) b *= 1e-6;
      }
      MatrixXd T = MatrixXd::Zero(k, k);
      for (int i = 0; i < k; ++i) T(i, i) = alpha[i];
      for (int i = 0; i + 1 < k; ++i) T(i, i + 1) = T(i + 1, i) = beta[i];
      const double exact = DenseLargest(T);
      // Any upper bound: Gershgorin's.
      double upper = -1e300;
      for (int i = 0; i < k; ++i)
        upper = std::max(upper, alpha[i] + (i > 0 ? std::fabs(beta[i - 1]) : 0.0) +
                                    (i + 1 < k ? std::fabs(beta[i]) : 0.0));
      INFO("k " << k << ", trial " << trial);
      double u = 0.0;
      std::vector<double> work(2 * k);
      const double found =
          LargestTridiagonalEigenvalue(alpha.data(), beta.data(), k, upper, &u, work.data());
      CHECK(std::fabs(found - exact) <= 1e-12 * std::max(1.0, std::fabs(exact)));
      // The last component of the top unit eigenvector, where the top eigenvalue is simple
      // (not the clustered trials): to round-off, also where it is tiny (random tridiagonal
      // matrices have localized eigenvectors).
      if (trial % 4 != 0) {
        const Eigen::SelfAdjointEigenSolver<MatrixXd> es(T);
        CHECK(u == Approx(std::fabs(es.eigenvectors()(k - 1, k - 1))).epsilon(1e-6).margin(1e-10));
      }
    }
  }
}

TEST_CASE("Lanczos finds lambda_max of an SPD matrix to round-off within its budget",
          "[solver][lanczos]") {
  std::mt19937 rng(11);
  for (int n : {1, 2, 6, 24, 60}) {
    for (double condition : {1.0, 1e3, 1e9}) {
      const MatrixXd M = RandomSpd(n, condition, &rng);
      const LanczosResult r = Largest(M, {});
      INFO("n " << n << ", condition " << condition);
      CHECK(r.converged);
      CHECK(r.iterations <= n);
      CHECK(r.value == Approx(DenseLargest(M)).epsilon(1e-9));
    }
  }
}

TEST_CASE("Lanczos estimates lambda_max from below on matrices larger than its budget",
          "[solver][lanczos]") {
  std::mt19937 rng(3);
  const int n = 400;
  const MatrixXd M = RandomSpd(n, 1e6, &rng);
  const double exact = DenseLargest(M);
  double previous = 0.0;
  for (int budget : {2, 5, 10, 20, 40, 60}) {
    LanczosParameters parameters;
    parameters.max_iterations = budget;
    const LanczosResult r = Largest(M, parameters);
    INFO("budget " << budget << ": " << r.value << " against " << exact);
    CHECK(r.value <= exact * (1.0 + 1e-12));  // a Ritz value: inside the spectrum
    CHECK(r.value >= previous * (1.0 - 1e-12));  // and never worse with more steps
    previous = r.value;
  }
  // The default budget and tolerance on a log-uniform spectrum (no gap at the top).
  const LanczosResult r = Largest(M, {});
  CHECK(r.value == Approx(exact).epsilon(1e-6));
}

TEST_CASE("the Lanczos start vector is a deterministic unit vector", "[solver][lanczos]") {
  std::vector<double> a(37), b(37);
  LanczosStartVector(37, a.data());
  LanczosStartVector(37, b.data());
  CHECK(a == b);
  CHECK(Eigen::Map<const VectorXd>(a.data(), 37).norm() == Approx(1.0).epsilon(1e-15));
}

TEST_CASE("a reserved Lanczos run allocates nothing", "[solver][lanczos][allocation]") {
  std::mt19937 rng(5);
  const int n = 80;
  const MatrixXd M = RandomSpd(n, 1e4, &rng);
  LanczosScratch scratch;
  const LanczosParameters parameters;
  scratch.Reserve(n, parameters.max_iterations);
  auto apply = [&](const double* x, double* y) {
    for (int i = 0; i < n; ++i) {
      double sum = 0.0;
      for (int j = 0; j < n; ++j) sum += M(i, j) * x[j];
      y[i] = sum;
    }
  };
  const std::size_t before = testing::AllocationCount();
  const LanczosResult r = LanczosLargestEigenvalue(n, apply, parameters, &scratch);
  CHECK(testing::AllocationCount() - before == 0);
  CHECK(r.value > 0.0);
}

}  // namespace
}  // namespace csim::solver
