// Delassus estimate w = ||sum_c J_c diag(A_c)^{-1} J_c^T||_F / n (docs/design/sap-problem.md §4).

#include "engine/solver/delassus_estimate.h"

#include <catch2/catch.hpp>

#include <cmath>

namespace csim::solver {
namespace {

using Eigen::MatrixXd;

TEST_CASE("Delassus estimate of a free point mass is sqrt(3)/(3m)", "[solver]") {
  const double m = 2.5;
  const MatrixXd A = m * MatrixXd::Identity(3, 3);
  const MatrixXd J = MatrixXd::Identity(3, 3);
  CHECK(EstimateDelassus(A, J) == Approx(std::sqrt(3.0) / (3.0 * m)).epsilon(1e-15));
}

TEST_CASE("Delassus estimate of a one-dof limit is 1/A_jj", "[solver]") {
  MatrixXd A(3, 3);
  A << 4, 1, 0, 1, 5, 1, 0, 1, 6;  // only the diagonal is read
  MatrixXd J1 = MatrixXd::Zero(1, 3), J2 = MatrixXd::Zero(2, 3);
  J1(0, 1) = 1.0;
  J2(0, 1) = 1.0;
  J2(1, 1) = -1.0;
  CHECK(EstimateDelassus(A, J1) == Approx(1.0 / 5.0).epsilon(1e-15));
  CHECK(EstimateDelassus(A, J2) == Approx(1.0 / 5.0).epsilon(1e-15));
}

// The coordinate recipe reads only A_jj and must give the dense recipe's bits: its one-row
// shortcut (sqrt(x^2) = x) over many magnitudes, and its loop for two rows.
TEST_CASE("Delassus estimate of coordinate rows is the dense recipe's, bit for bit", "[solver]") {
  for (double A_jj = 1e-150; A_jj < 1e150; A_jj *= 7.3) {
    for (int rows = 1; rows <= 2; ++rows) {
      MatrixXd A = MatrixXd::Identity(3, 3);
      A(1, 1) = A_jj;
      MatrixXd J = MatrixXd::Zero(rows, 3);
      for (int r = 0; r < rows; ++r) J(r, 1) = r == 0 ? 1.0 : -1.0;
      INFO("A_jj = " << A_jj << ", rows = " << rows);
      CHECK(EstimateCoordinateDelassus(rows, 1.0 / A_jj) == EstimateDelassus(A, J));
    }
  }
}

TEST_CASE("Delassus estimate of a two-clique contact sums both blocks", "[solver]") {
  // Contact between two point masses: W = I (1/m1 + 1/m2), w = sqrt(3)/3 (1/m1 + 1/m2).
  const double m1 = 1.5, m2 = 3.0;
  const MatrixXd A1 = m1 * MatrixXd::Identity(3, 3), A2 = m2 * MatrixXd::Identity(3, 3);
  const MatrixXd J1 = -MatrixXd::Identity(3, 3), J2 = MatrixXd::Identity(3, 3);
  CHECK(EstimateDelassus(A1, J1, A2, J2) ==
        Approx(std::sqrt(3.0) / 3.0 * (1 / m1 + 1 / m2)).epsilon(1e-15));
  // Against an explicit dense computation for a general Jacobian.
  MatrixXd Ja = MatrixXd::Random(3, 4), Jb = MatrixXd::Random(3, 2);
  MatrixXd Aa = MatrixXd::Identity(4, 4) * 2.0, Ab = MatrixXd::Identity(2, 2) * 0.5;
  Aa(0, 0) = 7.0;
  const MatrixXd W = Ja * Aa.diagonal().cwiseInverse().asDiagonal() * Ja.transpose() +
                     Jb * Ab.diagonal().cwiseInverse().asDiagonal() * Jb.transpose();
  CHECK(EstimateDelassus(Aa, Ja, Ab, Jb) == Approx(W.norm() / 3.0).epsilon(1e-14));
}

TEST_CASE("Delassus estimate from inverse diagonals (matrix-free cliques)", "[solver]") {
  // The recipe for cliques whose A is known by its diagonal only, against the explicit
  // dense W for one and for two cliques.
  const MatrixXd Ja = MatrixXd::Random(3, 5), Jb = MatrixXd::Random(3, 2);
  const Eigen::VectorXd da = (Eigen::VectorXd(5) << 0.5, 2.0, 0.1, 3.0, 1.0).finished();
  const Eigen::VectorXd db = (Eigen::VectorXd(2) << 4.0, 0.25).finished();
  const MatrixXd Wa = Ja * da.asDiagonal() * Ja.transpose();
  const MatrixXd Wab = Wa + Jb * db.asDiagonal() * Jb.transpose();
  CHECK(EstimateDelassusFromInverseDiagonal(Ja, da.data()) ==
        Approx(Wa.norm() / 3.0).epsilon(1e-14));
  const Eigen::Ref<const MatrixXd> Jb_ref = Jb;
  CHECK(EstimateDelassusFromInverseDiagonal(Ja, da.data(), &Jb_ref, db.data()) ==
        Approx(Wab.norm() / 3.0).epsilon(1e-14));
  // A one-dof limit: 1 / A_jj.
  MatrixXd J1 = MatrixXd::Zero(1, 5);
  J1(0, 3) = 1.0;
  CHECK(EstimateDelassusFromInverseDiagonal(J1, da.data()) == Approx(3.0).epsilon(1e-15));
}

TEST_CASE("Delassus estimate of contacts on free bodies (fixed-size path)", "[solver]") {
  // A free body's velocities are (omega, v_com): a point at offset d from the com moves
  // with v_com - [d]x omega, so J = [-[d]x, I3] and W = I3/m + [d]x diag(I)^-1 [d]x^T.
  auto skew = [](const Eigen::Vector3d& d) {
    Eigen::Matrix3d S;
    S << 0, -d.z(), d.y(), d.z(), 0, -d.x(), -d.y(), d.x(), 0;
    return S;
  };
  auto body = [&](double m, const Eigen::Vector3d& I, const Eigen::Vector3d& d, MatrixXd* A,
                  MatrixXd* J, Eigen::Matrix3d* W) {
    *A = MatrixXd::Random(6, 6);  // only the diagonal is read
    A->diagonal() << I, m, m, m;
    J->resize(3, 6);
    J->leftCols(3) = -skew(d);
    J->rightCols(3).setIdentity();
    *W = Eigen::Matrix3d::Identity() / m + skew(d) * I.cwiseInverse().asDiagonal() * skew(d).transpose();
  };
  MatrixXd A1, J1, A2, J2;
  Eigen::Matrix3d W1, W2;
  body(0.7, {0.01, 0.02, 0.015}, {0.05, -0.02, 0.03}, &A1, &J1, &W1);
  body(2.0, {0.3, 0.1, 0.2}, {-0.1, 0.04, -0.2}, &A2, &J2, &W2);
  CHECK(EstimateDelassus(A1, J1) == Approx(W1.norm() / 3.0).epsilon(1e-14));
  // Two bodies: the blocks add (the pair's relative velocity is J2 v2 - J1 v1).
  CHECK(EstimateDelassus(A1, -J1, A2, J2) == Approx((W1 + W2).norm() / 3.0).epsilon(1e-14));
  // A free body against a 4-velocity tree takes the general path: the same formula.
  const MatrixXd Jt = MatrixXd::Random(3, 4), At = MatrixXd::Identity(4, 4) * 3.0;
  const Eigen::Matrix3d Wt = Jt * At.diagonal().cwiseInverse().asDiagonal() * Jt.transpose();
  CHECK(EstimateDelassus(A1, J1, At, Jt) == Approx((W1 + Wt).norm() / 3.0).epsilon(1e-14));
  CHECK(EstimateDelassus(At, Jt, A1, J1) == Approx((W1 + Wt).norm() / 3.0).epsilon(1e-14));

  // The factored form (point contacts, lever arm d from each body's origin, contact frame R):
  // the same w as the dense blocks R^T [-[d]x I], for one body and for two, without R.
  const Eigen::Matrix3d R = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  const Eigen::Vector3d d[2] = {{0.05, -0.02, 0.03}, {-0.1, 0.04, -0.2}};
  const Eigen::VectorXd D1 = A1.diagonal().cwiseInverse(), D2 = A2.diagonal().cwiseInverse();
  const double* const inverse_diagonal[2] = {D1.data(), D2.data()};
  const MatrixXd RJ1 = R.transpose() * J1, RJ2 = R.transpose() * J2;
  CHECK(EstimatePointContactDelassus(1, inverse_diagonal, d) ==
        Approx(EstimateDelassus(A1, RJ1)).epsilon(1e-14));
  CHECK(EstimatePointContactDelassus(2, inverse_diagonal, d) ==
        Approx(EstimateDelassus(A1, -RJ1, A2, RJ2)).epsilon(1e-14));
  CHECK(EstimatePointContactDelassus(2, inverse_diagonal, d) == Approx((W1 + W2).norm() / 3.0).epsilon(1e-14));
}

TEST_CASE("Delassus estimate of a point contact: its derivative against central differences",
          "[solver][sensitivity]") {
  // Along inverse diagonals and levers moving linearly, one and two cliques: the closed form
  // against (w(s) - w(-s)) / 2s, whose truncation at s = 1e-5 is far below 1e-7 relative.
  const double d_a[6] = {2.0, 3.5, 1.2, 0.9, 0.9, 0.9}, d_b[6] = {5.0, 0.7, 2.2, 1.6, 1.6, 1.6};
  const double dd_a[6] = {-0.3, 0.4, 0.1, 0.0, 0.0, 0.0}, dd_b[6] = {0.2, -0.1, 0.5, 0.0, 0.0, 0.0};
  const Eigen::Vector3d r[2] = {{0.03, -0.05, 0.02}, {-0.04, 0.01, 0.06}};
  const Eigen::Vector3d dr[2] = {{0.2, 0.1, -0.3}, {-0.1, 0.4, 0.05}};
  for (int cliques = 1; cliques <= 2; ++cliques) {
    auto w_at = [&](double s) {
      double a[6], b[6];
      for (int i = 0; i < 6; ++i) {
        a[i] = d_a[i] + s * dd_a[i];
        b[i] = d_b[i] + s * dd_b[i];
      }
      const double* d[2] = {a, b};
      const Eigen::Vector3d rs[2] = {r[0] + s * dr[0], r[1] + s * dr[1]};
      return EstimatePointContactDelassus(cliques, d, rs);
    };
    const double* d[2] = {d_a, d_b};
    const double* dd[2] = {dd_a, dd_b};
    const double exact = EstimatePointContactDelassusDerivative(cliques, d, dd, r, dr);
    const double h = 1e-5;
    const double differenced = (w_at(h) - w_at(-h)) / (2 * h);
    INFO("cliques " << cliques << " exact " << exact << " differenced " << differenced);
    CHECK(std::abs(exact) > 1e-3);  // the levers are short: w moves little, but moves
    CHECK(std::abs(exact - differenced) <= 1e-7 * std::abs(exact));
  }
}

}  // namespace
}  // namespace csim::solver
