#include "engine/solver/delassus_estimate.h"

#include <cmath>

#include "engine/common/check.h"

namespace csim::solver {
namespace {

// (J diag(A)^{-1} J^T)_ab for one clique block, computed entry by entry (no temporaries).
double DelassusEntry(const Eigen::Ref<const Eigen::MatrixXd>& A,
                     const Eigen::Ref<const Eigen::MatrixXd>& J, int a, int b) {
  double sum = 0.0;
  for (int k = 0; k < J.cols(); ++k) sum += J(a, k) * J(b, k) / A(k, k);
  return sum;
}

void CheckBlock(const Eigen::Ref<const Eigen::MatrixXd>& A,
                const Eigen::Ref<const Eigen::MatrixXd>& J) {
  CSIM_CHECK(A.rows() == A.cols() && A.cols() == J.cols());
  for (int k = 0; k < A.rows(); ++k) CSIM_CHECK(A(k, k) > 0.0);
}

}  // namespace

double EstimateDelassus(const Eigen::Ref<const Eigen::MatrixXd>& A0,
                        const Eigen::Ref<const Eigen::MatrixXd>& J0) {
  CheckBlock(A0, J0);
  const int n = static_cast<int>(J0.rows());
  double frobenius_sq = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double W_ab = DelassusEntry(A0, J0, a, b);
      frobenius_sq += W_ab * W_ab;
    }
  return std::sqrt(frobenius_sq) / n;  // w = ||W||_F / n (math.md §3.3)
}

double EstimateDelassus(const Eigen::Ref<const Eigen::MatrixXd>& A0,
                        const Eigen::Ref<const Eigen::MatrixXd>& J0,
                        const Eigen::Ref<const Eigen::MatrixXd>& A1,
                        const Eigen::Ref<const Eigen::MatrixXd>& J1) {
  CheckBlock(A0, J0);
  CheckBlock(A1, J1);
  CSIM_CHECK(J0.rows() == J1.rows());
  const int n = static_cast<int>(J0.rows());
  double frobenius_sq = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double W_ab = DelassusEntry(A0, J0, a, b) + DelassusEntry(A1, J1, a, b);
      frobenius_sq += W_ab * W_ab;
    }
  return std::sqrt(frobenius_sq) / n;  // w = ||W||_F / n (math.md §3.3)
}

}  // namespace csim::solver
