// engine/solver/dense_ldlt.h: the factor reproduces the matrix, the solve inverts it, and
// a matrix that is not positive definite is refused.

#include <catch2/catch.hpp>

#include <random>

#include <Eigen/Dense>

#include "engine/solver/dense_ldlt.h"

namespace csim::solver {
namespace {

// A random SPD matrix of size n with condition number about 1e4.
Eigen::MatrixXd RandomSpd(int n, std::mt19937* engine) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd B(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) B(i, j) = u(*engine);
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(B);
  const Eigen::MatrixXd Q = qr.householderQ();
  Eigen::VectorXd d(n);
  for (int i = 0; i < n; ++i) d[i] = std::pow(1e4, n > 1 ? double(i) / (n - 1) : 0.0);
  return Q * d.asDiagonal() * Q.transpose();
}

TEST_CASE("dense LDLT: L D L^T = A and the solve inverts A, sizes 1 to 24", "[solver]") {
  std::mt19937 engine(7);
  for (int n = 1; n <= 24; ++n) {
    const Eigen::MatrixXd A = RandomSpd(n, &engine);
    Eigen::MatrixXd F = A;
    F.triangularView<Eigen::StrictlyUpper>().setConstant(std::nan(""));  // never read
    REQUIRE(DenseLdltInPlace(F.data(), n));
    const Eigen::MatrixXd L = F.triangularView<Eigen::UnitLower>();
    const Eigen::VectorXd D = F.diagonal().cwiseInverse();  // stored inverted
    INFO("n = " << n);
    CHECK((L * D.asDiagonal() * L.transpose() - A).norm() <= 1e-14 * A.norm());
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
    Eigen::VectorXd b = A * x;
    DenseLdltSolveInPlace(F.data(), n, b.data());
    // Backward stable: the error is the condition number (1e4) times round-off.
    CHECK((b - x).norm() <= 1e4 * 1e-14 * x.norm());
  }
}

TEST_CASE("dense LDLT refuses a matrix that is not positive definite", "[solver]") {
  Eigen::Matrix3d A;
  A << 1, 2, 0, 2, 1, 0, 0, 0, 1;  // eigenvalues 3, -1, 1
  CHECK_FALSE(DenseLdltInPlace(A.data(), 3));
  Eigen::Matrix2d Z = Eigen::Matrix2d::Zero();
  CHECK_FALSE(DenseLdltInPlace(Z.data(), 2));
  Eigen::Matrix2d N;
  N << std::nan(""), 0, 0, 1;
  CHECK_FALSE(DenseLdltInPlace(N.data(), 2));
}

}  // namespace
}  // namespace csim::solver
