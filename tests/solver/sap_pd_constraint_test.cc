// SapPdConstraint (docs/design/actuators-and-constraints.md §2): the impulse against the PD
// law written directly, derivatives by finite differences inside the band, in saturation and
// at the bounds, the near-rigid gain clamp, and one-dof servos against the closed-form
// recurrence of the discretized m x'' = -kp (x - x_d) - kd (x' - v_d) + u0.

#include "engine/solver/sap_pd_constraint.h"

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
using test::SolveOneDof;

constexpr double kInf = std::numeric_limits<double>::infinity();

SapPdParameters Servo(double theta_q) {
  SapPdParameters p;
  p.kp = 50.0;
  p.kd = 5.0;
  p.effort_limit = 3.0;
  p.q0 = 0.3;
  p.v0 = -0.4;
  p.q_target = 0.1;
  p.v_target = 0.2;
  p.feedforward = 0.5;
  p.theta_q = theta_q;
  return p;
}

SapPdConstraint Prepared(const SapPdParameters& p, double dt, double w) {
  SapPdConstraint c(p);
  c.Prepare(dt, w);
  return c;
}

// The PD law as the actuator states it (§2.1), not through R and v_hat.
double UnclampedEffort(const SapPdParameters& p, double dt, double v) {
  const double q = p.q0 + dt * ((1.0 - p.theta_q) * p.v0 + p.theta_q * v);
  return -p.kp * (q - p.q_target) - p.kd * (v - p.v_target) + p.feedforward;
}

TEST_CASE("PD constraint: the impulse and cost are the clamped PD law", "[robots]") {
  const double dt = 0.01, w = 0.5;
  for (double theta_q : {1.0, 0.5, 0.0}) {
    const SapPdParameters p = Servo(theta_q);
    const SapPdConstraint c = Prepared(p, dt, w);
    REQUIRE_FALSE(c.gains_clamped());
    const double band_c = dt * theta_q * p.kp + p.kd;
    CHECK(c.R() == Approx(1.0 / (dt * band_c)).epsilon(1e-14));
    for (double v = -3.0; v <= 3.0; v += 0.05) {
      const double y = UnclampedEffort(p, dt, v);
      double gamma = 0.0, G = 0.0;
      const double cost = c.Calc(&v, &gamma, &G, nullptr);
      CHECK(gamma == Approx(dt * std::clamp(y, -p.effort_limit, p.effort_limit))
                         .epsilon(1e-12).margin(1e-14));
      CHECK(c.EffortAt(v) == Approx(gamma / dt).epsilon(1e-15));
      const bool saturated = std::abs(y) > p.effort_limit;
      CHECK(c.SaturatedAt(v) == saturated);
      // Drake's form of the cost, (dt / c) Phi_e(y) (§2.2).
      const double e = p.effort_limit;
      const double Phi = std::abs(y) <= e ? 0.5 * y * y : e * (std::abs(y) - 0.5 * e);
      CHECK(cost == Approx(dt / band_c * Phi).epsilon(1e-12).margin(1e-15));
      CHECK(G == Approx(saturated ? 0.0 : dt * band_c).epsilon(1e-14));
    }
  }
}

TEST_CASE("PD constraint: impulse and G are the cost's derivatives on every piece",
          "[robots]") {
  const double dt = 0.01, w = 0.5;
  for (double theta_q : {1.0, 0.5}) {
    for (double e : {3.0, kInf}) {
      SapPdParameters p = Servo(theta_q);
      p.effort_limit = e;
      const SapPdConstraint c = Prepared(p, dt, w);
      for (double v = -3.0; v <= 3.0; v += 0.1) {
        CheckDerivatives(c, VectorXd::Constant(1, v), 1e-4, 1e-7);
      }
      if (std::isfinite(e)) {
        // Exactly at both bounds, Y = +-dt e: the band is closed, so the reported G is the
        // one-sided derivative inside it.
        for (double bound : {-1.0, 1.0}) {
          const double v = c.v_hat() - c.R() * bound * c.impulse_limit();
          CheckDerivatives(c, VectorXd::Constant(1, v), 1e-4, 1e-7);
        }
      }
    }
  }
}

TEST_CASE("PD constraint: one quadratic between two points of the same piece", "[robots]") {
  const SapPdConstraint c = Prepared(Servo(1.0), 0.01, 0.5);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  int segments = 0;
  for (int trial = 0; trial < 300; ++trial) {
    if (CheckQuadraticPiece(c, VectorXd::Constant(1, u(rng)), VectorXd::Constant(1, u(rng))))
      ++segments;
  }
  CHECK(segments > 50);
}

TEST_CASE("PD constraint: the near-rigid clamp keeps kd / kp and gives R = R_nr", "[robots]") {
  const double dt = 1e-3, w = 1.0;  // w = 1 / A_jj
  const double R_near_rigid = 0.1 * 0.1 / (4 * M_PI * M_PI) * w;
  for (double theta_q : {1.0, 0.5}) {
    SapPdParameters p = Servo(theta_q);
    p.kp = 1e12;
    p.kd = 3e8;
    const SapPdConstraint stiff = Prepared(p, dt, w);
    CHECK(stiff.gains_clamped());
    CHECK(stiff.effective_kd() / stiff.effective_kp() == Approx(p.kd / p.kp).epsilon(1e-15));
    CHECK(stiff.effective_kp() < p.kp);
    CHECK(stiff.R() == Approx(R_near_rigid).epsilon(1e-14));
    // The clamped gains satisfy dt (dt theta_q Kp' + Kd') = 1 / R_nr.
    CHECK(dt * (dt * theta_q * stiff.effective_kp() + stiff.effective_kd()) ==
          Approx(1.0 / R_near_rigid).epsilon(1e-14));
  }
  // Kp = 0 stays a velocity servo.
  SapPdParameters velocity = Servo(1.0);
  velocity.kp = 0.0;
  velocity.kd = 1e9;
  const SapPdConstraint servo = Prepared(velocity, dt, w);
  CHECK(servo.gains_clamped());
  CHECK(servo.effective_kp() == 0.0);
  CHECK(servo.effective_kd() == Approx(1.0 / (dt * R_near_rigid)).epsilon(1e-14));
  // Gains the step resolves are kept as given.
  const SapPdConstraint soft = Prepared(Servo(1.0), dt, w);
  CHECK_FALSE(soft.gains_clamped());
  CHECK(soft.effective_kp() == 50.0);
  CHECK(soft.effective_kd() == 5.0);
}

TEST_CASE("PD constraint: parameter validation", "[robots]") {
  CHECK(SapPdParametersError(Servo(1.0)) == nullptr);
  auto with = [](auto change) {
    SapPdParameters p = Servo(1.0);
    change(p);
    return SapPdParametersError(p) != nullptr;
  };
  CHECK(with([](SapPdParameters& p) { p.kp = -1.0; }));
  CHECK(with([](SapPdParameters& p) { p.kd = -1.0; }));
  CHECK(with([](SapPdParameters& p) { p.kp = kInf; }));
  CHECK(with([](SapPdParameters& p) { p.kd = std::nan(""); }));
  CHECK(with([](SapPdParameters& p) { p.kp = 0.0, p.kd = 0.0; }));
  CHECK(with([](SapPdParameters& p) { p.effort_limit = 0.0; }));
  CHECK(with([](SapPdParameters& p) { p.effort_limit = -2.0; }));
  CHECK(with([](SapPdParameters& p) { p.theta_q = 1.5; }));
  CHECK(with([](SapPdParameters& p) { p.q_target = kInf; }));
  CHECK_FALSE(with([](SapPdParameters& p) { p.effort_limit = kInf; }));
  CHECK_FALSE(with([](SapPdParameters& p) { p.kp = 0.0; }));
  CHECK_FALSE(with([](SapPdParameters& p) { p.kd = 0.0; }));
}

// The discrete servo (§2.6): with e = q - q_d and the step's balance
//   m (v' - v) = dt (-kp e' - kd (v' - v_d) + u0),   e' = e + dt ((1 - theta_q) v + theta_q v'),
// the state x = (e, v) obeys L x' = M x + s, an affine recurrence derived here from the
// discretized ODE alone.
struct ServoRecurrence {
  Matrix2d T;  // L^{-1} M
  Vector2d s;  // L^{-1} (0, dt (kd v_d + u0))
};

ServoRecurrence DiscreteServo(double m, double kp, double kd, double v_d, double u0, double dt,
                              double theta_q) {
  Matrix2d L, M;
  L << 1.0, -dt * theta_q, dt * kp, m + dt * kd;
  M << 1.0, dt * (1.0 - theta_q), 0.0, m;
  ServoRecurrence r;
  r.T = L.inverse() * M;
  r.s = L.inverse() * Vector2d(0.0, dt * (kd * v_d + u0));
  return r;
}

// One step of the servo through the constraint: v' is the exact minimizer of the one-dof SAP
// problem with v* = v (no other force), q' from the scheme's position update.
void StepServo(SapPdParameters* p, double m, double dt) {
  const SapPdConstraint c = Prepared(*p, dt, 1.0 / m);
  const double v = SolveOneDof(c, m, p->v0);
  p->q0 += dt * ((1.0 - p->theta_q) * p->v0 + p->theta_q * v);
  p->v0 = v;
}

TEST_CASE("PD constraint: a one-dof servo follows the discrete closed-form recurrence",
          "[robots]") {
  const double m = 2.0, dt = 0.01;
  for (double theta_q : {1.0, 0.5, 0.0}) {
    SapPdParameters p = Servo(theta_q);
    p.effort_limit = kInf;
    const ServoRecurrence r =
        DiscreteServo(m, p.kp, p.kd, p.v_target, p.feedforward, dt, theta_q);
    Vector2d x(p.q0 - p.q_target, p.v0);
    for (int n = 0; n < 300; ++n) {
      StepServo(&p, m, dt);
      x = r.T * x + r.s;
      INFO("theta_q = " << theta_q << ", step " << n);
      REQUIRE(std::abs(p.q0 - p.q_target - x[0]) <= 1e-12);
      REQUIRE(std::abs(p.v0 - x[1]) <= 1e-12);
    }
  }
}

TEST_CASE("PD constraint: kd = 0 with theta_q = 0 is the explicit Euler servo", "[robots]") {
  // c = 0: the effort is y(v0) whatever v, an explicit force (§2.4).
  const double m = 2.0, dt = 0.01;
  SapPdParameters p = Servo(0.0);
  p.kd = 0.0;
  p.effort_limit = kInf;
  const SapPdConstraint c = Prepared(p, dt, 1.0 / m);
  CHECK(std::isinf(c.R()));
  for (double v : {-1.0, 0.0, 2.0}) CheckDerivatives(c, VectorXd::Constant(1, v), 1e-3, 1e-9);
  const ServoRecurrence r = DiscreteServo(m, p.kp, 0.0, p.v_target, p.feedforward, dt, 0.0);
  Vector2d x(p.q0 - p.q_target, p.v0);
  for (int n = 0; n < 200; ++n) {
    StepServo(&p, m, dt);
    x = r.T * x + r.s;
    REQUIRE(std::abs(p.q0 - p.q_target - x[0]) <= 1e-12);
    REQUIRE(std::abs(p.v0 - x[1]) <= 1e-12);
  }
}

TEST_CASE("PD constraint: a saturated servo accelerates at exactly e / I", "[robots]") {
  // A large step of the target: the effort stays at the limit, so each step adds dt e / I to
  // the velocity, until the coordinate nears the target and the band is entered.
  const double inertia = 0.5, dt = 1e-3;
  SapPdParameters p = Servo(1.0);
  p.kp = 400.0;
  p.kd = 40.0;
  p.effort_limit = 2.0;
  p.q0 = 0.0;
  p.v0 = 0.0;
  p.q_target = 1.0;
  p.v_target = 0.0;
  p.feedforward = 0.0;
  // The saturated motion from rest in closed form: v_k = k dt a, q_k = dt^2 a k (k + 1) / 2
  // (a = e / I, q_k = q_{k-1} + dt v_k); step k stays saturated while the PD law at its end
  // state exceeds the limit, kp (q_d - q_k) - kd v_k > e.
  const double a = p.effort_limit / inertia;
  int expected_saturated_steps = 0;
  for (int k = 1;; ++k) {
    const double q_k = dt * dt * a * k * (k + 1) / 2, v_k = k * dt * a;
    if (p.kp * (p.q_target - q_k) - p.kd * v_k <= p.effort_limit) break;
    expected_saturated_steps = k;
  }
  int saturated_steps = 0;
  for (int n = 0; n < 2000; ++n) {
    const SapPdConstraint c = Prepared(p, dt, 1.0 / inertia);
    const double v = SolveOneDof(c, inertia, p.v0);
    if (!c.SaturatedAt(v)) break;
    ++saturated_steps;
    CHECK((v - p.v0) / dt == Approx(a).epsilon(1e-10));
    CHECK(c.EffortAt(v) == p.effort_limit);
    p.q0 += dt * v;
    p.v0 = v;
  }
  CHECK(saturated_steps == expected_saturated_steps);
  CHECK(saturated_steps > 100);
}

TEST_CASE("PD constraint: kp = 1e12 stays stable and settles on the target", "[robots]") {
  const double m = 0.1, dt = 1e-3;
  SapPdParameters p = Servo(1.0);
  p.kp = 1e12;
  p.kd = 1e9;
  p.effort_limit = kInf;
  p.v_target = 0.0;
  p.feedforward = 0.0;
  // The clamped servo is the discrete servo with the clamped gains: its recurrence has
  // spectral radius below one, so the error shrinks geometrically.
  const SapPdConstraint c = Prepared(p, dt, 1.0 / m);
  REQUIRE(c.gains_clamped());
  const ServoRecurrence r =
      DiscreteServo(m, c.effective_kp(), c.effective_kd(), 0.0, 0.0, dt, 1.0);
  CHECK(r.T.eigenvalues().cwiseAbs().maxCoeff() < 1.0);
  Vector2d x(p.q0 - p.q_target, p.v0);
  for (int n = 0; n < 200; ++n) {
    StepServo(&p, m, dt);
    x = r.T * x + r.s;
    REQUIRE(std::abs(p.q0 - p.q_target - x[0]) <= 1e-12);
  }
  CHECK(std::abs(p.q0 - p.q_target) < 1e-12);
}

TEST_CASE("PD constraint: the SAP solver finds the one-dof servo step", "[robots]") {
  // Through ContactProblem and SapSolver: the same v as the exact one-dof solve, to the
  // solver's tolerance, in the band and saturated.
  const double m = 2.0, dt = 0.01;
  for (double limit : {kInf, 0.5}) {
    SapPdParameters p = Servo(1.0);
    p.effort_limit = limit;
    ContactProblem problem;
    problem.Clear(dt);
    problem.AddClique(MatrixXd::Constant(1, 1, m));
    problem.SetFreeMotionVelocity(VectorXd::Constant(1, p.v0));
    const SapPdConstraint& added = AddPdActuator(&problem, 0, 0, p);
    SapSolver solver;
    SapSolverResult result;
    REQUIRE(solver.Solve(problem, VectorXd::Constant(1, 0.0), &result).ok());
    const double v = SolveOneDof(Prepared(p, dt, 1.0 / m), m, p.v0);
    CHECK(result.v[0] == Approx(v).epsilon(1e-8));
    CHECK(result.gamma[0] == Approx(m * (v - p.v0)).epsilon(1e-6));
    CHECK(added.SaturatedAt(result.v[0]) == std::isfinite(limit));
  }
}

}  // namespace
}  // namespace csim::solver
