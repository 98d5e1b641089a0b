// Tests of the direct solve of a problem of PD rows alone (engine/solver/pd_rows_direct_solve.h):
// it is taken when the guess's pieces hold at the solution, in the band and saturated, and
// then agrees with the Newton solve to round-off; it falls back to that solve otherwise; and it
// does not allocate once warmed up.

#include "engine/solver/pd_rows_direct_solve.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "engine/solver/sap_pd_constraint.h"
#include "engine/solver/sap_solver.h"
#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kDt = 1e-3;

// An arm-like SPD block (m x m): a random well-conditioned inertia.
MatrixXd ArmInertia(int m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  MatrixXd B(m, m);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) B(i, j) = u(rng);
  return 0.05 * B * B.transpose() + 0.02 * MatrixXd::Identity(m, m);
}

// Two cliques (a 7-dof arm with a servo per joint, a 3-dof one with servos on two joints) and
// an unconstrained third; `limit` is the even joints' servos' effort limit [N m], `error` the target
// offsets' scale [rad].
void BuildProblem(double limit, double error, ContactProblem* problem) {
  problem->Clear(kDt);
  problem->AddClique(ArmInertia(7, 1));
  problem->AddClique(ArmInertia(3, 2));
  problem->AddClique(ArmInertia(2, 3));
  VectorXd v_star(12);
  for (int i = 0; i < 12; ++i) v_star[i] = 0.1 * std::sin(1.0 + i);
  problem->SetFreeMotionVelocity(v_star);
  auto add = [&](int clique, int dof, double kp, double offset) {
    SapPdParameters p;
    p.kp = kp;
    p.kd = 2.0 * std::sqrt(kp * 0.05);
    p.effort_limit = dof % 2 == 0 ? limit : 1e3;  // the odd joints stay in their band
    p.q0 = 0.3 * dof;
    p.v0 = v_star[problem->clique_offset(clique) + dof];
    p.q_target = p.q0 + offset;
    p.v_target = 0.0;
    p.feedforward = 0.5;
    AddPdActuator(problem, clique, dof, p);
  };
  for (int j = 0; j < 7; ++j) add(0, j, 600.0 - 70.0 * j, error * std::cos(j));
  add(1, 0, 100.0, -error);
  add(1, 2, 50.0, 2.0 * error);
}

struct Solves {
  SapSolverResult direct, newton;
  bool taken = false;
};

Solves SolveBoth(const ContactProblem& problem, const VectorXd& guess) {
  Solves out;
  SapSolver direct;
  REQUIRE(direct.Solve(problem, guess, &out.direct).ok());
  out.taken = direct.last_solve_direct();
  SapSolverParameters tight;
  tight.relative_tolerance = 1e-14;
  SapSolver newton(tight);
  newton.set_direct_pd_solve(false);
  REQUIRE(newton.Solve(problem, guess, &out.newton).ok());
  REQUIRE_FALSE(newton.last_solve_direct());
  return out;
}

int NumSaturated(const ContactProblem& problem, const SapSolverResult& r) {
  int n = 0;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const auto& pd = static_cast<const SapPdConstraint&>(problem.constraint(k));
    const ConstraintEntry& e = problem.entry(k);
    n += pd.SaturatedAt(r.v[problem.clique_offset(e.clique[0]) + e.coordinate]);
  }
  return n;
}

void CheckAgree(const ContactProblem& problem, const Solves& s) {
  CHECK((s.direct.v - s.newton.v).lpNorm<Eigen::Infinity>() <= 1e-12);
  // Impulses [N m s] relative to the largest.
  const double scale = std::max(1.0, s.newton.gamma.lpNorm<Eigen::Infinity>());
  CHECK((s.direct.gamma - s.newton.gamma).lpNorm<Eigen::Infinity>() <= 1e-12 * scale);
  CHECK((s.direct.v_c - s.newton.v_c).lpNorm<Eigen::Infinity>() <= 1e-12);
  CHECK(s.direct.stats.momentum_error <= 1e-12);
  CHECK(s.direct.stats.cost == Approx(s.newton.stats.cost).epsilon(1e-10));
  CHECK(s.direct.stats.termination == SapTermination::kOptimality);
  CHECK(s.direct.stats.num_participating_velocities == 10);  // the third clique is not
  CHECK(s.direct.v.tail(2) == problem.v_star().tail(2));
  CHECK(NumSaturated(problem, s.direct) == NumSaturated(problem, s.newton));
}

TEST_CASE("PD rows direct solve: taken in the band, agrees with the Newton solve",
          "[robots][actuators]") {
  ContactProblem problem;
  BuildProblem(/*limit=*/1e3, /*error=*/0.01, &problem);
  REQUIRE(IsPdRowsProblem(problem));
  const Solves s = SolveBoth(problem, problem.v_star());
  CHECK(s.taken);
  CHECK(NumSaturated(problem, s.newton) == 0);
  CheckAgree(problem, s);
}

TEST_CASE("PD rows direct solve: taken with saturated servos, agrees with the Newton solve",
          "[robots][actuators]") {
  // Large target errors against small limits: some rows saturated at the guess and at the
  // solution, some not.
  ContactProblem problem;
  BuildProblem(/*limit=*/2.0, /*error=*/0.2, &problem);
  SapSolver newton;
  newton.set_direct_pd_solve(false);
  SapSolverResult exact;
  REQUIRE(newton.Solve(problem, problem.v_star(), &exact).ok());
  const int saturated = NumSaturated(problem, exact);
  REQUIRE(saturated > 0);
  REQUIRE(saturated < problem.num_constraints());
  // From a guess on the solution's pieces (the warm start of a servo holding its limit).
  const Solves s = SolveBoth(problem, exact.v);
  CHECK(s.taken);
  CheckAgree(problem, s);
}

TEST_CASE("PD rows direct solve: falls back to the Newton solve off the guess's pieces",
          "[robots][actuators]") {
  ContactProblem problem;
  BuildProblem(/*limit=*/2.0, /*error=*/0.2, &problem);
  // A guess far away: every row on a saturated piece that does not hold at the solution.
  const VectorXd guess = VectorXd::Constant(12, 50.0);
  SapSolver with_direct, without;
  without.set_direct_pd_solve(false);
  SapSolverResult a, b;
  REQUIRE(with_direct.Solve(problem, guess, &a).ok());
  CHECK_FALSE(with_direct.last_solve_direct());
  REQUIRE(without.Solve(problem, guess, &b).ok());
  CHECK(a.v == b.v);  // the same Newton solve, bit for bit
  CHECK(a.gamma == b.gamma);
  CHECK(a.stats.iterations == b.stats.iterations);
}

TEST_CASE("PD rows direct solve: not for other kinds or explicit servos", "[robots]") {
  ContactProblem problem;
  problem.Clear(kDt);
  problem.AddClique(ArmInertia(2, 4));
  problem.SetFreeMotionVelocity(VectorXd::Zero(2));
  CHECK_FALSE(IsPdRowsProblem(problem));  // no constraint
  SapPdParameters p;
  p.kp = 10.0;
  p.kd = 0.0;
  p.theta_q = 0.0;  // c = 0: an explicit force
  AddPdActuator(&problem, 0, 1, p);
  CHECK_FALSE(IsPdRowsProblem(problem));
}

TEST_CASE("PD rows direct solve: no allocation once warmed up", "[robots]") {
  ContactProblem problem;
  BuildProblem(1e3, 0.01, &problem);
  SapSolver solver;
  SapSolverResult result;
  const VectorXd guess = problem.v_star();
  REQUIRE(solver.Solve(problem, guess, &result).ok());
  REQUIRE(solver.last_solve_direct());
  std::size_t allocations = 0;
  for (int n = 0; n < 5; ++n) {
    BuildProblem(1e3, 0.01 * (n + 1), &problem);  // allocates its temporaries: not counted
    const std::size_t before = testing::AllocationCount();
    const bool ok = solver.Solve(problem, guess, &result).ok();
    allocations += testing::AllocationCount() - before;
    REQUIRE(ok);
    REQUIRE(solver.last_solve_direct());
  }
  CHECK(allocations == 0);
}

}  // namespace
}  // namespace csim::solver
