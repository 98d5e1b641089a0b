// SapHolonomicConstraint (docs/design/actuators-and-constraints.md §4): R, tau and v_hat in
// the compliant and near-rigid regimes, derivatives by finite differences on every piece and
// at the bounds, the cost's continuity across a bound, and one-dof motions against closed
// forms: a compliant row is the implicit spring-damper, a rigid row halves its violation per
// step; a coupler solved by the SAP solver against the bilateral problem's linear system.

#include "engine/solver/sap_holonomic_constraint.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "engine/solver/sap_solver.h"
#include "tests/solver/constraint_oracles.h"

namespace csim::solver {
namespace {

using Eigen::Matrix2d;
using Eigen::MatrixXd;
using Eigen::Vector2d;
using Eigen::VectorXd;
using test::CheckDerivatives;
using test::CheckQuadraticPiece;
using test::Evaluate;
using test::SolveOneDof;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kBetaFactor = 0.1 * 0.1 / (4 * M_PI * M_PI);

// Four rows: rigid bilateral, compliant bilateral, box-bounded, one-sided (gamma >= 0).
SapHolonomicParameters MixedRows() {
  SapHolonomicParameters p;
  p.num_rows = 4;
  p.g0 = {0.01, -0.02, 0.005, -0.003, 0.0, 0.0};
  p.bias = {0.0, 0.1, -0.2, 0.0, 0.0, 0.0};
  p.stiffness = {kInf, 100.0, 1e3, kInf, kInf, kInf};
  p.relaxation_time = {0.0, 0.05, 0.01, 0.0, 0.0, 0.0};
  p.impulse_lower = {-kInf, -kInf, -0.02, 0.0, -kInf, -kInf};
  p.impulse_upper = {kInf, kInf, 0.03, kInf, kInf, kInf};
  return p;
}

SapHolonomicConstraint Prepared(const SapHolonomicParameters& p, double dt, double w) {
  SapHolonomicConstraint c(p);
  c.Prepare(dt, w);
  return c;
}

TEST_CASE("Holonomic constraint: R, tau and v_hat in both regimes", "[robots]") {
  const double dt = 0.01, w = 2.0;
  const SapHolonomicParameters p = MixedRows();
  const SapHolonomicConstraint c = Prepared(p, dt, w);
  const double R_nr = kBetaFactor * w;
  // Rigid rows: R = R_nr and tau = dt, so v_hat = -g0 / (2 dt) - b.
  for (int e : {0, 3}) {
    CHECK(c.near_rigid(e));
    CHECK(c.R(e) == Approx(R_nr).epsilon(1e-15));
    CHECK(c.v_hat(e) == Approx(-p.g0[e] / (2 * dt) - p.bias[e]).epsilon(1e-15));
  }
  // Compliant rows keep their tau: R = 1 / (dt (dt + tau) k), v_hat = -g0 / (dt + tau) - b.
  for (int e : {1, 2}) {
    const double tau = p.relaxation_time[e];
    CHECK_FALSE(c.near_rigid(e));
    CHECK(c.R(e) == Approx(1.0 / (dt * (dt + tau) * p.stiffness[e])).epsilon(1e-15));
    CHECK(c.v_hat(e) == Approx(-p.g0[e] / (dt + tau) - p.bias[e]).epsilon(1e-15));
  }
  // A finite stiffness past the near-rigid threshold takes R_nr and tau = dt.
  SapHolonomicParameters stiff = p;
  stiff.stiffness[1] = 1e12;
  const SapHolonomicConstraint s = Prepared(stiff, dt, w);
  CHECK(s.near_rigid(1));
  CHECK(s.R(1) == Approx(R_nr).epsilon(1e-15));
  CHECK(s.v_hat(1) == Approx(-p.g0[1] / (2 * dt) - p.bias[1]).epsilon(1e-15));
}

TEST_CASE("Holonomic constraint: impulse and G are the cost's derivatives on every piece",
          "[robots]") {
  const SapHolonomicConstraint c = Prepared(MixedRows(), 0.01, 2.0);
  const int n = c.num_rows();
  std::mt19937 rng(5);
  // Velocities around v_hat, scaled per row by R times a few impulse bounds, so that every
  // row visits each of its pieces.
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  auto sample = [&]() {
    VectorXd v_c(n);
    for (int e = 0; e < n; ++e) v_c[e] = c.v_hat(e) + c.R(e) * 0.03 * u(rng);
    return v_c;
  };
  int pieces_seen = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const VectorXd v_c = sample();
    CheckDerivatives(c, v_c, 1e-3 * c.R(2) * 0.03, 1e-7);
    pieces_seen |= 1 << Evaluate(c, v_c).piece % 27 / 9;  // row 2's piece
  }
  CHECK(pieces_seen == 0b111);  // below, inside and above
  // Exactly at each bound of rows 2 and 3 (one-sided differences).
  const SapHolonomicParameters& p = c.parameters();
  for (int e : {2, 3}) {
    for (double bound : {p.impulse_lower[e], p.impulse_upper[e]}) {
      if (!std::isfinite(bound)) continue;
      VectorXd v_c = sample();
      v_c[e] = c.v_hat(e) - c.R(e) * bound;
      CheckDerivatives(c, v_c, 1e-3 * c.R(2) * 0.03, 1e-7);
    }
  }
  int segments = 0;
  for (int trial = 0; trial < 600; ++trial)
    if (CheckQuadraticPiece(c, sample(), sample())) ++segments;
  CHECK(segments > 20);
}

TEST_CASE("Holonomic constraint: the cost is continuous across an impulse bound",
          "[robots]") {
  // Drake's saturated branch -gamma_b v_c jumps by R gamma_b^2 / 2 - gamma_b v_hat at the
  // bound; csim's does not (§4.3): the cost just inside and just outside agree to O(eps).
  SapHolonomicParameters p = MixedRows();
  const SapHolonomicConstraint c = Prepared(p, 0.01, 2.0);
  for (double bound : {p.impulse_lower[2], p.impulse_upper[2]}) {
    VectorXd v_c = VectorXd::Zero(4);
    for (int e = 0; e < 4; ++e) v_c[e] = c.v_hat(e);
    const double at_bound = c.v_hat(2) - c.R(2) * bound;
    for (double eps : {1e-6, 1e-9}) {
      v_c[2] = at_bound + eps;
      const double one_side = Evaluate(c, v_c).cost;
      v_c[2] = at_bound - eps;
      const double other_side = Evaluate(c, v_c).cost;
      CHECK(std::abs(one_side - other_side) <= 2.1 * eps * std::abs(bound));
    }
  }
}

// A one-dof mass m held at g = x by a single row: the one-row parameters.
SapHolonomicParameters OneRow(double g0, double k, double tau) {
  SapHolonomicParameters p;
  p.num_rows = 1;
  p.g0[0] = g0;
  p.stiffness[0] = k;
  p.relaxation_time[0] = tau;
  return p;
}

TEST_CASE("Holonomic constraint: a compliant row is the implicit spring-damper", "[robots]") {
  // m x'' = -k x - k tau x' under implicit Euler: m (v' - v) = -dt k (x' + tau v'),
  // x' = x + dt v', i.e. L (x', v') = M (x, v) with L = [1 -dt; dt k  m + dt k tau].
  const double m = 0.5, k = 200.0, tau = 0.02, dt = 0.01;
  Matrix2d L, M;
  L << 1.0, -dt, dt * k, m + dt * k * tau;
  M << 1.0, 0.0, 0.0, m;
  const Matrix2d T = L.inverse() * M;
  Vector2d state(0.1, -0.3), closed_form = state;
  for (int n = 0; n < 300; ++n) {
    const SapHolonomicConstraint c = Prepared(OneRow(state[0], k, tau), dt, 1.0 / m);
    REQUIRE_FALSE(c.near_rigid(0));
    const double v = SolveOneDof(c, m, state[1]);
    state = Vector2d(state[0] + dt * v, v);
    closed_form = T * closed_form;
    REQUIRE((state - closed_form).norm() <= 1e-12);
  }
}

TEST_CASE("Holonomic constraint: a rigid row relaxes its violation without overshoot",
          "[robots]") {
  // Near-rigid, tau = dt: from rest, m v = -(g0 / (2 dt) + v) / R_nr, so
  // g1 = g0 (1 - 1 / (2 (1 + m R_nr))), about half the violation per step; the state
  // (g, v) then follows a linear recurrence with real eigenvalues (no oscillation).
  const double m = 3.0, dt = 1e-3, g0 = 1e-3;
  const double mR = kBetaFactor;  // m R_nr, with w = 1 / m
  const SapHolonomicConstraint c = Prepared(OneRow(g0, kInf, 0.0), dt, 1.0 / m);
  const double v = SolveOneDof(c, m, 0.0);
  CHECK(g0 + dt * v == Approx(g0 * (1.0 - 1.0 / (2.0 * (1.0 + mR)))).epsilon(1e-12));
  double g = g0, velocity = 0.0;
  for (int n = 0; n < 40; ++n) {
    const SapHolonomicConstraint step = Prepared(OneRow(g, kInf, 0.0), dt, 1.0 / m);
    velocity = SolveOneDof(step, m, velocity);
    const double g_next = g + dt * velocity;
    REQUIRE(g_next > 0.0);  // never crosses zero
    REQUIRE(g_next < 0.51 * g);
    g = g_next;
  }
}

TEST_CASE("Holonomic constraint: a rigid coupler solved by SAP matches the linear system",
          "[robots]") {
  // Two coordinates of one clique coupled by q_0 = -q_1 (a parallel gripper): the bilateral
  // optimum solves (A + J^T J / R) v = A v* + J^T v_hat / R.
  const double dt = 0.01;
  MatrixXd A(2, 2);
  A << 2.0, 0.3, 0.3, 1.0;
  const Vector2d v_star(0.4, 0.1);
  const double q0 = 0.02, q1 = -0.015;
  SapHolonomicParameters p = OneRow(q0 + q1, kInf, 0.0);  // g = q_0 - (-1) q_1
  MatrixXd J(1, 2);
  J << 1.0, 1.0;
  ContactProblem problem;
  problem.Clear(dt);
  problem.AddClique(A);
  problem.SetFreeMotionVelocity(v_star);
  const SapHolonomicConstraint& c = problem.AddConstraint(0, J, SapHolonomicConstraint(p));
  SapSolver solver;
  SapSolverResult result;
  REQUIRE(solver.Solve(problem, VectorXd::Zero(2), &result).ok());
  const double R = c.R(0);
  // Drake's Delassus estimate for this row: w = J diag(A)^{-1} J^T.
  CHECK(R == Approx(kBetaFactor * (1.0 / 2.0 + 1.0 / 1.0)).epsilon(1e-14));
  const MatrixXd H = A + J.transpose() * J / R;
  const VectorXd v = H.ldlt().solve(A * v_star + J.transpose() * (c.v_hat(0) / R));
  CHECK((result.v - v).norm() <= 1e-8 * v.norm());
  CHECK(result.gamma[0] == Approx((c.v_hat(0) - v[0] - v[1]) / R).epsilon(1e-6));
}

TEST_CASE("Holonomic constraint: parameter validation", "[robots]") {
  CHECK(SapHolonomicParametersError(MixedRows()) == nullptr);
  auto with = [](auto change) {
    SapHolonomicParameters p = MixedRows();
    change(p);
    return SapHolonomicParametersError(p) != nullptr;
  };
  CHECK(with([](SapHolonomicParameters& p) { p.num_rows = 0; }));
  CHECK(with([](SapHolonomicParameters& p) { p.num_rows = 7; }));
  CHECK(with([](SapHolonomicParameters& p) { p.stiffness[1] = 0.0; }));
  CHECK(with([](SapHolonomicParameters& p) { p.relaxation_time[1] = -1.0; }));
  CHECK(with([](SapHolonomicParameters& p) { p.impulse_lower[2] = 1.0; }));
  CHECK(with([](SapHolonomicParameters& p) { p.g0[0] = std::nan(""); }));
  CHECK(with([](SapHolonomicParameters& p) { p.near_rigid_threshold = 0.0; }));
  CHECK_FALSE(with([](SapHolonomicParameters& p) { p.num_rows = 6; }));
  const SapHolonomicParameters rigid = RigidHolonomicParameters(Eigen::Vector3d(1, 2, 3));
  CHECK(rigid.num_rows == 3);
  CHECK(rigid.g0[2] == 3.0);
  CHECK(std::isinf(rigid.stiffness[2]));
  CHECK(SapHolonomicParametersError(rigid) == nullptr);
}

}  // namespace
}  // namespace csim::solver
