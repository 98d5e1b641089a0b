// SapJointFrictionConstraint (docs/design/actuators-and-constraints.md §3): R and the band,
// derivatives by finite differences in stiction, sliding and at the bounds, and one-dof
// motions against closed forms: below the friction limit the coordinate creeps at most
// R dt f_s, above it the net effort is the applied one minus f_s.

#include "engine/solver/sap_joint_friction_constraint.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/solver/sap_solver.h"
#include "tests/solver/constraint_oracles.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using test::CheckDerivatives;
using test::CheckQuadraticPiece;
using test::SolveOneDof;

SapJointFrictionConstraint Prepared(double friction, double dt, double w) {
  SapJointFrictionParameters p;
  p.friction = friction;
  SapJointFrictionConstraint c(p);
  c.Prepare(dt, w);
  return c;
}

TEST_CASE("Joint friction: R is the near-rigid floor and the band is dt f_s", "[robots]") {
  const double dt = 0.01, w = 4.0, f_s = 1.5;
  const SapJointFrictionConstraint c = Prepared(f_s, dt, w);
  CHECK(c.R() == Approx(0.1 * 0.1 / (4 * M_PI * M_PI) * w).epsilon(1e-15));
  CHECK(c.impulse_limit() == Approx(dt * f_s).epsilon(1e-15));
  // gamma = clamp(-v / R, -dt f_s, dt f_s), written directly.
  for (double v = -0.02; v <= 0.02; v += 1e-4) {
    double gamma = 0.0;
    c.Calc(&v, &gamma, nullptr, nullptr);
    CHECK(gamma == Approx(std::clamp(-v / c.R(), -dt * f_s, dt * f_s)).epsilon(1e-14));
  }
}

TEST_CASE("Joint friction: impulse and G are the cost's derivatives on every piece",
          "[robots]") {
  const SapJointFrictionConstraint c = Prepared(1.5, 0.01, 4.0);
  const double creep = c.R() * c.impulse_limit();  // the edge of the stiction band
  for (double v = -3 * creep; v <= 3 * creep; v += creep / 8)
    CheckDerivatives(c, VectorXd::Constant(1, v), creep / 100, 1e-7);
  for (double v : {-creep, creep}) CheckDerivatives(c, VectorXd::Constant(1, v), creep / 100, 1e-7);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-3 * creep, 3 * creep);
  int segments = 0;
  for (int trial = 0; trial < 300; ++trial)
    if (CheckQuadraticPiece(c, VectorXd::Constant(1, u(rng)), VectorXd::Constant(1, u(rng))))
      ++segments;
  CHECK(segments > 50);
}

TEST_CASE("Joint friction: below the limit the coordinate creeps at most R dt f_s",
          "[robots]") {
  // A constant effort tau below f_s from rest: each step m (v' - v) = dt tau + gamma with
  // gamma = -v' / R in stiction, so v' = (m v + dt tau) / (m + 1/R), which rises to the
  // creep speed R dt tau < R dt f_s.
  const double m = 0.25, dt = 0.01, f_s = 2.0;
  for (double tau : {0.5, -1.9}) {
    const SapJointFrictionConstraint c = Prepared(f_s, dt, 1.0 / m);
    double v = 0.0, v_closed_form = 0.0;
    for (int n = 0; n < 500; ++n) {
      v = SolveOneDof(c, m, v + dt * tau / m);
      v_closed_form = (m * v_closed_form + dt * tau) / (m + 1.0 / c.R());
      REQUIRE(std::abs(v) <= c.R() * dt * f_s);
      REQUIRE(v == Approx(v_closed_form).epsilon(1e-12));
    }
    CHECK(v == Approx(c.R() * dt * tau).epsilon(1e-9));
  }
}

TEST_CASE("Joint friction: above the limit the net effort is the applied one minus f_s",
          "[robots]") {
  const double m = 0.25, dt = 0.01, f_s = 2.0;
  const SapJointFrictionConstraint c = Prepared(f_s, dt, 1.0 / m);
  for (double tau : {2.5, -7.0}) {
    double v = 0.0;
    for (int n = 0; n < 100; ++n) {
      const double v_next = SolveOneDof(c, m, v + dt * tau / m);
      const double net = tau - std::copysign(f_s, tau);
      CHECK(m * (v_next - v) / dt == Approx(net).epsilon(1e-10));
      v = v_next;
    }
  }
  // A coordinate sliding with no applied effort decelerates at f_s / m, then sticks.
  double v = 1.0;
  int sliding_steps = 0;
  for (int n = 0; n < 200; ++n) {
    const double v_next = SolveOneDof(c, m, v);
    if (std::abs(v_next) <= c.R() * dt * f_s) break;
    CHECK(m * (v_next - v) / dt == Approx(-f_s).epsilon(1e-10));
    v = v_next;
    ++sliding_steps;
  }
  // v_k = 1 - k dt f_s / m reaches the creep band after floor(m / (dt f_s)) steps (12.5).
  CHECK(sliding_steps == 12);
  CHECK(SolveOneDof(c, m, v) == Approx(m * v / (m + 1.0 / c.R())).epsilon(1e-12));
}

TEST_CASE("Joint friction: the SAP solver holds a coordinate below the limit", "[robots]") {
  const double m = 0.25, dt = 0.01, f_s = 2.0, tau = 1.0;
  ContactProblem problem;
  problem.Clear(dt);
  problem.AddClique(MatrixXd::Constant(1, 1, m));
  problem.SetFreeMotionVelocity(VectorXd::Constant(1, dt * tau / m));
  SapJointFrictionParameters p;
  p.friction = f_s;
  const SapJointFrictionConstraint& c = AddJointFriction(&problem, 0, 0, p);
  SapSolver solver;
  SapSolverResult result;
  REQUIRE(solver.Solve(problem, VectorXd::Constant(1, 0.0), &result).ok());
  CHECK(result.v[0] == Approx(dt * tau / (m + 1.0 / c.R())).epsilon(1e-8));
  CHECK(result.gamma[0] == Approx(-result.v[0] / c.R()).epsilon(1e-8));
}

}  // namespace
}  // namespace csim::solver
