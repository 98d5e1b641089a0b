#pragma once
// Oracles shared by the tests of the clamped constraint kinds (PD actuator, joint friction,
// holonomic): derivatives by finite differences on one quadratic piece, the quadratic-piece
// contract of Constraint::Calc, CalcAlong against Calc, and the exact solve of a one-dof
// problem with one one-row constraint.
//
// The kinds' costs are quadratic on each piece, so the difference formulas below are exact
// up to rounding when their points stay on one piece; the tests place them so.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include "engine/solver/constraint.h"

namespace csim::solver::test {

/// Cost, gamma, G (n x n) and piece of constraint c at v_c.
struct ConstraintValues {
  double cost = 0.0;
  Eigen::VectorXd gamma;
  Eigen::MatrixXd G;
  int piece = -2;
};

inline ConstraintValues Evaluate(const Constraint& c, const Eigen::VectorXd& v_c) {
  const int n = c.num_rows();
  ConstraintValues out;
  out.gamma.resize(n);
  out.G.resize(n, n);
  out.cost = c.Calc(v_c.data(), out.gamma.data(), out.G.data(), &out.piece);
  return out;
}

/// Checks gamma = -d ell / d v_c and G = -d gamma / d v_c at v_c by differences of step h
/// along each row: central ones where both neighbours lie on v_c's piece, else one-sided
/// three-point ones on the side that does (a point on a piece boundary: the reported G must
/// be the derivative on the side of the piece it reports). Also G symmetric and PSD.
inline void CheckDerivatives(const Constraint& c, const Eigen::VectorXd& v_c, double h,
                             double tolerance) {
  const int n = c.num_rows();
  const ConstraintValues at = Evaluate(c, v_c);
  Eigen::VectorXd minus_gradient(n);
  Eigen::MatrixXd minus_dgamma(n, n);
  for (int j = 0; j < n; ++j) {
    auto shifted = [&](double s) {
      Eigen::VectorXd x = v_c;
      x[j] += s;
      return Evaluate(c, x);
    };
    const ConstraintValues plus = shifted(h), minus = shifted(-h);
    if (plus.piece == at.piece && minus.piece == at.piece) {
      minus_gradient[j] = -(plus.cost - minus.cost) / (2 * h);
      minus_dgamma.col(j) = (plus.gamma - minus.gamma) / (2 * h);
    } else {
      // Three points x, x + s h, x + 2 s h on the side whose nearer point shares the piece.
      const double s = plus.piece == at.piece ? 1.0 : -1.0;
      const ConstraintValues one = s > 0 ? plus : minus, two = shifted(2 * s * h);
      INFO("row " << j << ": a one-sided difference on the reported piece");
      REQUIRE(one.piece == at.piece);
      REQUIRE(two.piece == at.piece);
      minus_gradient[j] = -s * (-3 * at.cost + 4 * one.cost - two.cost) / (2 * h);
      minus_dgamma.col(j) = s * (-3 * at.gamma + 4 * one.gamma - two.gamma) / (2 * h);
    }
  }
  INFO("v_c = " << v_c.transpose() << ", gamma = " << at.gamma.transpose()
                << ", piece = " << at.piece);
  CHECK((at.gamma - minus_gradient).norm() <= tolerance * (1.0 + at.gamma.norm()));
  CHECK((at.G + minus_dgamma).norm() <= tolerance * (1.0 + at.G.norm()));
  CHECK((at.G - at.G.transpose()).norm() == 0.0);
  CHECK(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(at.G).eigenvalues().minCoeff() >= 0.0);
}

/// Checks the contract of Calc's piece between a and b when both report the same piece: the
/// cost along the segment is the quadratic from a (cost, slope -d^T gamma, curvature
/// d^T G d), every point of it reports that piece, and CalcAlong agrees with Calc at a.
/// Returns whether a and b shared a piece.
inline bool CheckQuadraticPiece(const Constraint& c, const Eigen::VectorXd& a,
                                const Eigen::VectorXd& b) {
  const int n = c.num_rows();
  const ConstraintValues at_a = Evaluate(c, a);
  const Eigen::VectorXd d = b - a;
  // CalcAlong: the same cost, gamma and piece as Calc, and the curvature d^T G d.
  Eigen::VectorXd gamma(n);
  std::vector<double> scratch(n * n);
  double curvature = -1.0;
  int piece = -2;
  const double cost =
      c.CalcAlong(a.data(), d.data(), gamma.data(), &curvature, &piece, scratch.data());
  CHECK(cost == at_a.cost);
  CHECK(gamma == at_a.gamma);
  CHECK(piece == at_a.piece);
  CHECK(curvature == Approx(d.dot(at_a.G * d)).epsilon(1e-14).margin(1e-300));
  if (Evaluate(c, b).piece != at_a.piece || at_a.piece < 0) return false;
  for (double t : {0.25, 0.5, 0.75, 1.0}) {
    const ConstraintValues x = Evaluate(c, a + t * d);
    CHECK(x.piece == at_a.piece);
    const double quadratic = at_a.cost - t * d.dot(at_a.gamma) + 0.5 * t * t * curvature;
    CHECK(x.cost == Approx(quadratic).epsilon(1e-10).margin(1e-12 * (1.0 + std::abs(at_a.cost))));
  }
  return true;
}

/// The exact minimizer of 1/2 m (v - v_star)^2 + ell(v) for a one-row constraint c acting
/// on the single velocity v (J = [1]), i.e. the root of m (v - v_star) = gamma(v). gamma is
/// non-increasing, so the root is bracketed and bisected until both ends lie on one piece,
/// where gamma is affine and one Newton step lands on the root (up to rounding).
/// Uses nothing of the kind but Constraint::Calc.
inline double SolveOneDof(const Constraint& c, double m, double v_star) {
  REQUIRE(c.num_rows() == 1);
  auto residual = [&](double v, double* slope, int* piece) {
    double gamma = 0.0, G = 0.0;
    c.Calc(&v, &gamma, &G, piece);
    if (slope != nullptr) *slope = m + G;
    return m * (v - v_star) - gamma;
  };
  double span = 1.0;
  double lo = v_star - span, hi = v_star + span;
  int piece_lo = 0, piece_hi = 0;
  while (residual(lo, nullptr, &piece_lo) > 0.0) lo -= (span *= 2);
  while (residual(hi, nullptr, &piece_hi) < 0.0) hi += (span *= 2);
  for (int iteration = 0; iteration < 400; ++iteration) {
    residual(lo, nullptr, &piece_lo);
    residual(hi, nullptr, &piece_hi);
    if (piece_lo == piece_hi && piece_lo >= 0) {
      double slope = 0.0;
      const double f = residual(lo, &slope, nullptr);
      return lo - f / slope;
    }
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) return mid;  // the root is on a piece boundary
    const double f = residual(mid, nullptr, nullptr);
    if (f == 0.0) return mid;
    (f < 0.0 ? lo : hi) = mid;
  }
  FAIL("SolveOneDof did not separate the pieces");
  return 0.0;
}

}  // namespace csim::solver::test
