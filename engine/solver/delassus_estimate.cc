#include "engine/solver/delassus_estimate.h"

#include <cmath>
#include <limits>

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

// The common case, a contact (3 rows) on a free body (6 velocities), with fixed sizes:
// W += (J D) J^T with D = diag(A)^{-1}, one small product instead of an entry-by-entry
// loop over dynamic views (the contact build evaluates it for every contact, every step).
using Matrix36 = Eigen::Matrix<double, 3, 6>;
bool IsContactOnFreeBody(const Eigen::Ref<const Eigen::MatrixXd>& J) {
  return J.rows() == 3 && J.cols() == 6;
}
void AddContactBlock(const Eigen::Ref<const Eigen::MatrixXd>& A,
                     const Eigen::Ref<const Eigen::MatrixXd>& J, Eigen::Matrix3d* W) {
  const Eigen::Matrix<double, 6, 1> D = A.diagonal().head<6>().cwiseInverse();
  const Matrix36 J36 = J.topLeftCorner<3, 6>();
  *W += (J36 * D.asDiagonal()) * J36.transpose();
}

}  // namespace

double EstimateDelassus(const Eigen::Ref<const Eigen::MatrixXd>& A0,
                        const Eigen::Ref<const Eigen::MatrixXd>& J0) {
  CheckBlock(A0, J0);
  if (IsContactOnFreeBody(J0)) {
    Eigen::Matrix3d W = Eigen::Matrix3d::Zero();
    AddContactBlock(A0, J0, &W);
    return W.norm() / 3.0;  // w = ||W||_F / n (docs/design/sap-problem.md §4)
  }
  const int n = static_cast<int>(J0.rows());
  double frobenius_sq = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double W_ab = DelassusEntry(A0, J0, a, b);
      frobenius_sq += W_ab * W_ab;
    }
  return std::sqrt(frobenius_sq) / n;  // w = ||W||_F / n (docs/design/sap-problem.md §4)
}

double EstimateDelassus(const Eigen::Ref<const Eigen::MatrixXd>& A0,
                        const Eigen::Ref<const Eigen::MatrixXd>& J0,
                        const Eigen::Ref<const Eigen::MatrixXd>& A1,
                        const Eigen::Ref<const Eigen::MatrixXd>& J1) {
  CheckBlock(A0, J0);
  CheckBlock(A1, J1);
  CSIM_CHECK(J0.rows() == J1.rows());
  if (IsContactOnFreeBody(J0) && IsContactOnFreeBody(J1)) {
    Eigen::Matrix3d W = Eigen::Matrix3d::Zero();
    AddContactBlock(A0, J0, &W);
    AddContactBlock(A1, J1, &W);
    return W.norm() / 3.0;  // w = ||W||_F / n (docs/design/sap-problem.md §4)
  }
  const int n = static_cast<int>(J0.rows());
  double frobenius_sq = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double W_ab = DelassusEntry(A0, J0, a, b) + DelassusEntry(A1, J1, a, b);
      frobenius_sq += W_ab * W_ab;
    }
  return std::sqrt(frobenius_sq) / n;  // w = ||W||_F / n (docs/design/sap-problem.md §4)
}

double EstimateDelassusFromInverseDiagonal(const Eigen::Ref<const Eigen::MatrixXd>& J0,
                                           const double* inverse_diagonal0,
                                           const Eigen::Ref<const Eigen::MatrixXd>* J1,
                                           const double* inverse_diagonal1) {
  CSIM_CHECK(J1 == nullptr || (inverse_diagonal1 != nullptr && J1->rows() == J0.rows()));
  // sum + (J diag(A)^{-1} J^T)_ab of one clique, entry by entry (no temporaries).
  const auto add_entry = [](double sum, const Eigen::Ref<const Eigen::MatrixXd>& J,
                            const double* inverse_diagonal, int a, int b) {
    for (int j = 0; j < J.cols(); ++j) sum += J(a, j) * J(b, j) * inverse_diagonal[j];
    return sum;
  };
  const int n = static_cast<int>(J0.rows());
  double frobenius_sq = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double W_ab = add_entry(0.0, J0, inverse_diagonal0, a, b);
      if (J1 != nullptr) W_ab = add_entry(W_ab, *J1, inverse_diagonal1, a, b);
      frobenius_sq += W_ab * W_ab;
    }
  return std::sqrt(frobenius_sq) / n;  // w = ||W||_F / n (docs/design/sap-problem.md §4)
}

double EstimateCoordinateDelassus(int num_rows, double inverse_A_jj) {
  CSIM_CHECK(num_rows >= 1 && inverse_A_jj > 0.0);
  // One row (a PD servo, joint friction): sqrt(fl(x^2)) = x exactly for a positive x whose
  // square is a normal number (round to nearest), so the loop below would return x itself.
  const double square = inverse_A_jj * inverse_A_jj;
  if (num_rows == 1 && square >= std::numeric_limits<double>::min() && std::isfinite(square))
    return inverse_A_jj;
  // W_ab = (+-1)(+-1) / A_jj = +-inverse_A_jj exactly (the zero columns add exact zeros), and
  // W_ab^2 = inverse_A_jj^2 whatever the signs: the generic loop's sum, term by term.
  double frobenius_sq = 0.0;
  for (int a = 0; a < num_rows; ++a)
    for (int b = 0; b < num_rows; ++b) frobenius_sq += inverse_A_jj * inverse_A_jj;
  return std::sqrt(frobenius_sq) / num_rows;  // w = ||W||_F / n (docs/design/sap-problem.md §4)
}

namespace {

// sum_c M_c of EstimatePointContactDelassus (symmetric, all nine entries).
Eigen::Matrix3d PointContactMatrix(int num_cliques, const double* const* inverse_diagonal,
                                   const Eigen::Vector3d* r) {
  CSIM_CHECK(num_cliques == 1 || num_cliques == 2);
  Eigen::Matrix3d M = Eigen::Matrix3d::Zero();
  for (int c = 0; c < num_cliques; ++c) {
    const double* const d = inverse_diagonal[c];
    for (int i = 0; i < 6; ++i) CSIM_CHECK(d[i] > 0.0);
    const double x = r[c].x(), y = r[c].y(), z = r[c].z();
    // X D_w X^T with X = -[r]x (rows (0, z, -y), (-z, 0, x), (y, -x, 0)), plus D_v.
    M(0, 0) += d[1] * z * z + d[2] * y * y + d[3];
    M(1, 1) += d[0] * z * z + d[2] * x * x + d[4];
    M(2, 2) += d[0] * y * y + d[1] * x * x + d[5];
    M(0, 1) -= d[2] * x * y;
    M(0, 2) -= d[1] * x * z;
    M(1, 2) -= d[0] * y * z;
  }
  M(1, 0) = M(0, 1);
  M(2, 0) = M(0, 2);
  M(2, 1) = M(1, 2);
  return M;
}

}  // namespace

double EstimatePointContactDelassus(int num_cliques, const double* const* inverse_diagonal,
                                    const Eigen::Vector3d* r) {
  // w = ||W||_F / n (docs/design/sap-problem.md §4), ||R^T M R||_F = ||M||_F
  return PointContactMatrix(num_cliques, inverse_diagonal, r).norm() / 3.0;
}

double EstimatePointContactDelassusDerivative(int num_cliques,
                                              const double* const* inverse_diagonal,
                                              const double* const* d_inverse_diagonal,
                                              const Eigen::Vector3d* r,
                                              const Eigen::Vector3d* dr) {
  const Eigen::Matrix3d M = PointContactMatrix(num_cliques, inverse_diagonal, r);
  // dM, the product rule on each entry of M_c.
  Eigen::Matrix3d dM = Eigen::Matrix3d::Zero();
  for (int c = 0; c < num_cliques; ++c) {
    const double* const e = inverse_diagonal[c];
    const double* const de = d_inverse_diagonal[c];
    const double x = r[c].x(), y = r[c].y(), z = r[c].z();
    const double dx = dr[c].x(), dy = dr[c].y(), dz = dr[c].z();
    dM(0, 0) += de[1] * z * z + 2 * e[1] * z * dz + de[2] * y * y + 2 * e[2] * y * dy + de[3];
    dM(1, 1) += de[0] * z * z + 2 * e[0] * z * dz + de[2] * x * x + 2 * e[2] * x * dx + de[4];
    dM(2, 2) += de[0] * y * y + 2 * e[0] * y * dy + de[1] * x * x + 2 * e[1] * x * dx + de[5];
    dM(0, 1) -= de[2] * x * y + e[2] * (dx * y + x * dy);
    dM(0, 2) -= de[1] * x * z + e[1] * (dx * z + x * dz);
    dM(1, 2) -= de[0] * y * z + e[0] * (dy * z + y * dz);
  }
  dM(1, 0) = dM(0, 1);
  dM(2, 0) = dM(0, 2);
  dM(2, 1) = dM(1, 2);
  // d ||M||_F = <M, dM>_F / ||M||_F.
  return M.cwiseProduct(dM).sum() / (3.0 * M.norm());
}

}  // namespace csim::solver
