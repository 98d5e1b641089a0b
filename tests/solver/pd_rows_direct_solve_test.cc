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
// offsets' scale [rad]. The servos are SapPdConstraints of `problem`; the same rows for the
// direct solve are DirectProblem's.
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

// The problem's cliques and v* without its rows, and its rows as the direct solve takes them
// (each SapPdConstraint's clamped row after Prepare).
struct DirectProblem {
  ContactProblem cliques;
  std::vector<PdRow> rows;
};

void Split(const ContactProblem& problem, DirectProblem* out) {
  out->cliques.Clear(problem.dt());
  for (int c = 0; c < problem.num_cliques(); ++c) out->cliques.AddClique(problem.A(c));
  out->cliques.SetFreeMotionVelocity(problem.v_star());
  out->rows.clear();
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const auto& pd = static_cast<const SapPdConstraint&>(problem.constraint(k));
    const ConstraintEntry& e = problem.entry(k);
    out->rows.push_back({e.clique[0], e.coordinate, pd.v_hat(), pd.R(), pd.impulse_limit()});
  }
}

// The direct solve of `problem`'s rows, and the Newton solve of the problem with them.
struct Solves {
  SapSolverResult direct, newton;
  VectorXd direct_gamma;  // the rows' impulses, in problem order
  bool taken = false;
};

bool SolveDirect(const DirectProblem& d, const VectorXd& guess, PdRowsDirectScratch* scratch,
                 SapSolverResult* result) {
  return SolvePdRowsDirectly(d.cliques, d.rows.data(), static_cast<int>(d.rows.size()),
                             SapSolverParameters{}, guess, scratch, result);
}

Solves SolveBoth(const ContactProblem& problem, const VectorXd& guess) {
  Solves out;
  DirectProblem d;
  Split(problem, &d);
  PdRowsDirectScratch scratch;
  out.taken = SolveDirect(d, guess, &scratch, &out.direct);
  out.direct_gamma = Eigen::Map<const VectorXd>(scratch.gamma.data(), problem.num_constraints());
  SapSolverParameters tight;
  tight.relative_tolerance = 1e-14;
  SapSolver newton(tight);
  REQUIRE(newton.Solve(problem, guess, &out.newton).ok());
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
  // Impulses [N m s] relative to the largest (one row each, in problem order).
  const double scale = std::max(1.0, s.newton.gamma.lpNorm<Eigen::Infinity>());
  CHECK((s.direct_gamma - s.newton.gamma).lpNorm<Eigen::Infinity>() <= 1e-12 * scale);
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

TEST_CASE("PD rows direct solve: declined off the guess's pieces", "[robots][actuators]") {
  ContactProblem problem;
  BuildProblem(/*limit=*/2.0, /*error=*/0.2, &problem);
  // A guess far away: every row on a saturated piece that does not hold at the solution.
  const VectorXd guess = VectorXd::Constant(12, 50.0);
  DirectProblem d;
  Split(problem, &d);
  PdRowsDirectScratch scratch;
  SapSolverResult result;
  CHECK_FALSE(SolveDirect(d, guess, &scratch, &result));
}

TEST_CASE("PD rows direct solve: no allocation once warmed up", "[robots]") {
  ContactProblem problem;
  BuildProblem(1e3, 0.01, &problem);
  PdRowsDirectScratch scratch;
  SapSolverResult result;
  const VectorXd guess = problem.v_star();
  DirectProblem d;
  Split(problem, &d);
  REQUIRE(SolveDirect(d, guess, &scratch, &result));
  std::size_t allocations = 0;
  for (int n = 0; n < 5; ++n) {
    BuildProblem(1e3, 0.01 * (n + 1), &problem);  // allocates its temporaries: not counted
    Split(problem, &d);
    const std::size_t before = testing::AllocationCount();
    const bool taken = SolveDirect(d, guess, &scratch, &result);
    allocations += testing::AllocationCount() - before;
    REQUIRE(taken);
  }
  CHECK(allocations == 0);
}

}  // namespace
}  // namespace csim::solver
