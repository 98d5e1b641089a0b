// SapLimitConstraint (docs/design/joint-limits.md): parameters, derivatives by finite differences,
// and solves on a one-dof clique pushed past its limit or moving inside its limits.

#include "engine/solver/sap_limit_constraint.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/solver/sap_solver.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

TEST_CASE("Limit constraint rows, R and v_hat", "[solver]") {
  SapLimitParameters p;
  p.q0 = 0.2;
  p.lower = -0.1;
  p.upper = 0.5;
  SapLimitConstraint both(p);
  CHECK(both.num_rows() == 2);
  const double dt = 0.01, w = 0.5;
  both.Prepare(dt, w);
  // Near-rigid (k = inf), beta = 0.1, tau_d = dt by default.
  CHECK(both.R() == Approx(0.01 / (4 * M_PI * M_PI) * w).epsilon(1e-14));
  CHECK(both.v_hat(0) == Approx(-(0.2 + 0.1) / (2 * dt)));
  CHECK(both.v_hat(1) == Approx(-(0.5 - 0.2) / (2 * dt)));
  p.lower = -std::numeric_limits<double>::infinity();
  SapLimitConstraint upper_only(p);
  CHECK(upper_only.num_rows() == 1);
  CHECK(upper_only.has_upper());
  MatrixXd J(1, 3);
  FillCoordinateRows(upper_only, 2, J);
  CHECK(J == (MatrixXd(1, 3) << 0, 0, -1).finished());
  // A finite stiffness in the compliant regime.
  p.stiffness = 100.0;
  p.dissipation_time = 0.0;
  SapLimitConstraint soft(p);
  soft.Prepare(dt, w);
  CHECK(soft.R() == Approx(1.0 / (dt * 100.0 * dt)).epsilon(1e-14));
}

// Limits at +-0.01 around q0 = 0, prepared for dt = 0.01, w = 1.
SapLimitConstraint TwoSidedLimit() {
  SapLimitParameters p;
  p.q0 = 0.0;
  p.lower = -0.01;
  p.upper = 0.01;
  SapLimitConstraint c(p);
  c.Prepare(0.01, 1.0);
  return c;
}

TEST_CASE("Limit constraint impulse and G are the cost's derivatives", "[solver]") {
  const SapLimitConstraint c = TwoSidedLimit();
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Vector2d v_c(u(rng), u(rng));
    Eigen::Vector2d gamma, gp, gm, grad_fd;
    Eigen::Matrix2d G, dgamma;
    c.Calc(v_c.data(), gamma.data(), G.data(), nullptr);
    const double h = 1e-7;
    for (int j = 0; j < 2; ++j) {
      Eigen::Vector2d vp = v_c, vm = v_c;
      vp[j] += h;
      vm[j] -= h;
      const double ell_p = c.Calc(vp.data(), gp.data(), nullptr, nullptr);
      const double ell_m = c.Calc(vm.data(), gm.data(), nullptr, nullptr);
      grad_fd[j] = (ell_p - ell_m) / (2 * h);
      dgamma.col(j) = (gp - gm) / (2 * h);
    }
    CHECK((gamma + grad_fd).norm() <= 1e-6 * (1.0 + gamma.norm()));
    CHECK((G + dgamma).norm() <= 1e-6 * (1.0 + G.norm()));
    CHECK(G.isDiagonal());
    CHECK(G.minCoeff() >= 0.0);
  }
}

TEST_CASE("Limit constraint: one quadratic between two points of the same piece", "[solver]") {
  // SapLimitConstraint::QuadraticPieceAt: the piece is the set of active rows; on a segment
  // whose ends share it the cost is its Taylor polynomial of degree two from one end, and
  // every point of the segment has the same piece.
  const SapLimitConstraint c = TwoSidedLimit();
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  int pieces_seen = 0, segments = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Eigen::Vector2d a(u(rng), u(rng)), b(u(rng), u(rng));
    const int piece = c.QuadraticPieceAt(a.data());
    REQUIRE(piece >= 0);
    pieces_seen |= 1 << piece;
    if (c.QuadraticPieceAt(b.data()) != piece) continue;
    ++segments;
    const Eigen::Vector2d d = b - a;
    Eigen::Vector2d gamma_a, gamma;
    Eigen::Matrix2d scratch;
    double curvature = 0.0;
    int piece_a = -2;
    const double cost_a =
        c.CalcAlong(a.data(), d.data(), gamma_a.data(), &curvature, &piece_a, scratch.data());
    CHECK(piece_a == piece);
    for (double t : {0.2, 0.5, 0.9, 1.0}) {
      const Eigen::Vector2d x = a + t * d;
      int piece_x = -2;
      const double cost = c.Calc(x.data(), gamma.data(), nullptr, &piece_x);
      CHECK(piece_x == piece);  // Calc reports QuadraticPieceAt's piece
      CHECK(cost == Approx(cost_a - t * d.dot(gamma_a) + 0.5 * t * t * curvature)
                        .epsilon(1e-10)
                        .margin(1e-12));
      CHECK(c.QuadraticPieceAt(x.data()) == piece);
    }
  }
  CHECK(pieces_seen == 0b1111);  // all four combinations of active rows
  CHECK(segments > 50);
}

// One dof, A = [a], free motion v*, a limit; returns the solve.
SapSolverResult SolveOneDof(double a, double v_star, const SapLimitParameters& p, double dt,
                            SapLineSearch ls) {
  ContactProblem problem;
  problem.Clear(dt);
  problem.AddClique(MatrixXd::Constant(1, 1, a));
  problem.SetFreeMotionVelocity(VectorXd::Constant(1, v_star));
  AddJointLimit(&problem, 0, 0, p);
  SapSolverParameters sp;
  sp.line_search = ls;
  SapSolver solver(sp);
  SapSolverResult r;
  REQUIRE(solver.Solve(problem, VectorXd::Constant(1, 3.0), &r).ok());
  return r;
}

TEST_CASE("Limit constraint stops a dof pushed past its lower limit", "[solver]") {
  for (SapLineSearch ls : {SapLineSearch::kExact, SapLineSearch::kBacktracking}) {
    const double a = 2.0, dt = 0.01;
    SapLimitParameters p;
    p.q0 = 0.0;
    p.lower = -1e-3;
    p.upper = 1.0;
    // Single step: minimiser of 1/2 a (v - v*)^2 + 1/2 R ((v_hat - v)/R)_+^2 is
    // v = (a R v* + v_hat) / (a R + 1), gamma_lower = a (v - v*).
    const double v_star = -1.0;
    const SapSolverResult r = SolveOneDof(a, v_star, p, dt, ls);
    SapLimitConstraint c(p);
    c.Prepare(dt, 1.0 / a);
    const double v = (a * c.R() * v_star + c.v_hat(0)) / (a * c.R() + 1.0);
    CHECK(r.v[0] == Approx(v).epsilon(1e-8));
    CHECK(r.gamma[0] == Approx(a * (v - v_star)).epsilon(1e-8));
    CHECK(r.gamma[1] == 0.0);
    // The step ends (almost) at the limit instead of at q0 + dt v* = -1e-2.
    CHECK(p.q0 + dt * r.v[0] > p.lower - 1e-5);
  }
}

TEST_CASE("Limit constraint holds a dof pushed against its limit at rest", "[solver]") {
  // A constant force F toward the lower limit: the dof settles at the limit and the
  // impulse balances the force, gamma = F dt (static equilibrium).
  const double a = 2.0, dt = 0.01, F = 5.0;
  SapLimitParameters p;
  p.lower = -1e-3;
  double q = 0.0, v = 0.0;
  SapSolverResult r;
  for (int n = 0; n < 100; ++n) {
    p.q0 = q;
    r = SolveOneDof(a, v - dt * F / a, p, dt, SapLineSearch::kExact);
    v = r.v[0];
    q += dt * v;
  }
  CHECK(std::abs(v) < 1e-8);
  CHECK(r.gamma[0] == Approx(F * dt).epsilon(1e-6));
  // Steady penetration: gamma = v_hat / R, v_hat = -(q - q_l)/(2 dt)  =>  q - q_l = -2 dt R F dt.
  SapLimitConstraint c(p);
  c.Prepare(dt, 1.0 / a);
  CHECK(q - p.lower == Approx(-2 * dt * c.R() * F * dt).epsilon(1e-4));
}

TEST_CASE("Limit constraint leaves a dof inside its limits untouched", "[solver]") {
  SapLimitParameters p;
  p.q0 = 0.0;
  p.lower = -1.0;
  p.upper = 1.0;
  for (SapLineSearch ls : {SapLineSearch::kExact, SapLineSearch::kBacktracking}) {
    const SapSolverResult r = SolveOneDof(2.0, 0.1, p, 0.01, ls);
    CHECK(r.v[0] == Approx(0.1).epsilon(1e-12));
    CHECK(r.gamma.isZero());
  }
}

}  // namespace
}  // namespace csim::solver
