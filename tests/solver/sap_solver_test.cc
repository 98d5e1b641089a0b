// SapSolver: every row of the pizza-saver table (docs/design/reference-cases.md §1) with both line
// searches, the momentum error (SAP eq. 32) of every converged solve, warm starts, cliques without
// constraints, failure statuses, and an allocation-free warmed-up solve.

#include "engine/solver/sap_solver.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "engine/solver/sap_friction_cone_constraint.h"
#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::Vector4d;
using Eigen::VectorXd;

constexpr double kEps = std::numeric_limits<double>::epsilon();

// The pizza saver of docs/design/reference-cases.md §1: m = 3 kg, circumradius 1.5 m, I = m R^2, g
// = 10 m/s^2, q = v-integrated (x, y, z, theta), one clique of 4 dofs, three ground contacts.
struct PizzaSaver {
  double dt = 0.01, mu = 1.0, k = 1e4, tau_d = 0.01, beta = kEps;
  double m = 3.0, radius = 1.5, g = 10.0, sigma = 1e-3;
  bool predict_stiction = false;  // offer the stiction model (SapFrictionConeParameters)
  Vector4d tau = Vector4d(0, 0, -30, 0);  // applied generalized force (gravity included)
  Vector4d q = Vector4d(0, 0, 0, M_PI / 5);
  Vector4d v = Vector4d::Zero();
  Vector4d guess = Vector4d(1, 2, 3, 4);
  MatrixXd M = Vector4d(3, 3, 3, 3 * 1.5 * 1.5).asDiagonal();
  MatrixXd J[3] = {MatrixXd(3, 4), MatrixXd(3, 4), MatrixXd(3, 4)};
  VectorXd v_star = VectorXd::Zero(4);

  // Builds the problem at the current state (allocation-free once J and v_star exist).
  void Build(ContactProblem* problem) {
    problem->Clear(dt);
    problem->AddClique(M);
    v_star = v + dt * M.diagonal().cwiseInverse().cwiseProduct(tau);
    problem->SetFreeMotionVelocity(v_star);
    const double c = std::cos(q[3]), s = std::sin(q[3]);
    const Vector3d p_B[3] = {radius * Vector3d(-std::sqrt(3.0) / 2, -0.5, 0),
                             radius * Vector3d(std::sqrt(3.0) / 2, -0.5, 0),
                             radius * Vector3d(0, 1, 0)};
    SapFrictionConeParameters params;
    params.mu = mu;
    params.stiffness = k;
    params.dissipation_time = tau_d;
    params.phi0 = q[2];
    params.near_rigid_threshold = beta;
    params.stiction_sigma = sigma;
    params.was_stuck = predict_stiction;
    for (int i = 0; i < 3; ++i) {
      const double px = c * p_B[i].x() - s * p_B[i].y(), py = s * p_B[i].x() + c * p_B[i].y();
      J[i] << 1, 0, 0, -py, 0, 1, 0, px, 0, 0, 1, 0;
      problem->AddConstraint(0, J[i], SapFrictionConeConstraint(params));
    }
  }
};

struct RunSummary {
  bool ok = true;
  StepStatus first_failure;
  int steps = 0;
  std::vector<int> iterations;
  double max_momentum_error = 0.0;  // over solves that stopped on the optimality criterion
  int cost_terminations = 0;
  SapSolverResult last;
};

RunSummary Simulate(PizzaSaver& pizza, SapSolver& solver, int steps) {
  RunSummary run;
  ContactProblem problem;
  for (int n = 0; n < steps; ++n) {
    pizza.Build(&problem);
    const StepStatus status = solver.Solve(problem, pizza.guess, &run.last);
    if (!status.ok()) {
      run.ok = false;
      run.first_failure = status;
      return run;
    }
    run.iterations.push_back(run.last.stats.iterations);
    if (run.last.stats.termination == SapTermination::kOptimality)
      run.max_momentum_error = std::max(run.max_momentum_error, run.last.stats.momentum_error);
    if (run.last.stats.termination == SapTermination::kCostStagnation) ++run.cost_terminations;
    pizza.v = run.last.v;
    pizza.q += pizza.dt * pizza.v;
    ++run.steps;
  }
  return run;
}

SapSolver MakeSolver(SapLineSearch line_search) {
  SapSolverParameters p;
  p.line_search = line_search;
  p.warm_start = WarmStart::kPrevious;  // SAP's rule: an optimal guess stands as it is
  return SapSolver(p);
}

VectorXd GeneralizedImpulse(const PizzaSaver& pizza, const VectorXd& gamma) {
  VectorXd j = VectorXd::Zero(4);
  for (int i = 0; i < 3; ++i) j += pizza.J[i].transpose() * gamma.segment<3>(3 * i);
  return j;
}

void Report(const char* name, SapLineSearch ls, const RunSummary& run) {
  int total = 0, max_it = 0;
  for (int it : run.iterations) total += it, max_it = std::max(max_it, it);
  std::printf("pizza %-24s %-12s steps %3d  iterations: mean %.2f max %d\n", name,
              ls == SapLineSearch::kExact ? "exact" : "backtracking", run.steps,
              run.iterations.empty() ? 0.0 : double(total) / run.iterations.size(), max_it);
}

constexpr SapLineSearch kLineSearches[] = {SapLineSearch::kExact, SapLineSearch::kBacktracking};

TEST_CASE("Pizza saver: no applied torque rests on its contacts", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    SapSolver solver = MakeSolver(ls);
    const RunSummary run = Simulate(pizza, solver, 30);
    Report("NoAppliedTorque", ls, run);
    REQUIRE(run.ok);
    CHECK(run.max_momentum_error < 1e-6);
    CHECK(run.last.v.norm() < 1e-6);
    for (int i = 0; i < 3; ++i)
      CHECK((run.last.gamma.segment<3>(3 * i) - Vector3d(0, 0, 0.1)).norm() < 1e-6 * 0.1);
    CHECK((GeneralizedImpulse(pizza, run.last.gamma) - Vector4d(0, 0, 0.3, 0)).norm() < 1e-6 * 0.3);
    CHECK(run.last.v_c.norm() < 1e-6);
  }
}

void CheckStiction(const PizzaSaver& pizza, const SapSolverResult& r, double v_tol) {
  const double M_z = pizza.tau[3];
  CHECK(r.v.head<3>().norm() < v_tol);
  CHECK((GeneralizedImpulse(pizza, r.gamma) - Vector4d(0, 0, 0.3, -pizza.dt * M_z)).norm() < 1e-6);
  const double slip_bound = pizza.sigma * pizza.mu * pizza.dt * pizza.g;
  for (int i = 0; i < 3; ++i) {
    const Vector3d gamma = r.gamma.segment<3>(3 * i), v_c = r.v_c.segment<3>(3 * i);
    CHECK(gamma[2] == Approx(0.1).epsilon(1e-6));
    CHECK(gamma.head<2>().norm() == Approx(pizza.dt * M_z / (3 * pizza.radius)).epsilon(1e-5));
    CHECK(gamma.head<2>().norm() <= pizza.mu * gamma[2]);
    CHECK(std::abs(v_c[2]) < v_tol);
    CHECK(v_c.head<2>().norm() <= slip_bound);
  }
}

TEST_CASE("Pizza saver: stiction under a torque below mu m g R", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    pizza.mu = 2.0 / 3.0;
    pizza.tau_d = 2 * pizza.dt;
    pizza.beta = 1.0;
    pizza.tau[3] = 20.0;
    SapSolver solver = MakeSolver(ls);
    const RunSummary run = Simulate(pizza, solver, 40);
    Report("Stiction", ls, run);
    REQUIRE(run.ok);
    CHECK(run.max_momentum_error < 1e-6);
    CheckStiction(pizza, run.last, 1e-10);

    // Warm start with the exact solution: zero iterations, same answer.
    ContactProblem problem;
    pizza.Build(&problem);
    SapSolverResult first, second;
    REQUIRE(solver.Solve(problem, pizza.guess, &first).ok());
    REQUIRE(solver.Solve(problem, first.v, &second).ok());
    CHECK(second.stats.iterations == 0);
    CHECK(second.v == first.v);
  }
}

TEST_CASE("Pizza saver: stiction with zero tolerances stops on the cost criterion", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    pizza.mu = 2.0 / 3.0;
    pizza.tau_d = 2 * pizza.dt;
    pizza.beta = 1.0;
    pizza.tau[3] = 20.0;
    SapSolverParameters p;
    p.line_search = ls;
    p.relative_tolerance = 0.0;
    p.absolute_tolerance = 0.0;
    SapSolver solver(p);
    const RunSummary run = Simulate(pizza, solver, 40);
    Report("Stiction eps = 0", ls, run);
    REQUIRE(run.ok);
    CHECK(run.cost_terminations == 40);
    CheckStiction(pizza, run.last, 1e-10);
  }
}

TEST_CASE("Pizza saver: no friction slides under a horizontal force", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    pizza.mu = 0.0;
    pizza.tau[0] = 1.0;
    SapSolver solver = MakeSolver(ls);
    const RunSummary run = Simulate(pizza, solver, 30);
    Report("NoFriction", ls, run);
    REQUIRE(run.ok);
    CHECK(run.max_momentum_error < 1e-6);
    CHECK((run.last.v - Vector4d(0.1, 0, 0, 0)).norm() < 1e-6 * 0.1);
    for (int i = 0; i < 3; ++i) {
      CHECK((run.last.gamma.segment<3>(3 * i) - Vector3d(0, 0, 0.1)).norm() < 1e-6 * 0.1);
      CHECK((run.last.v_c.segment<3>(3 * i) - Vector3d(0.1, 0, 0)).norm() < 1e-6 * 0.1);
    }
  }
}

TEST_CASE("Pizza saver: sliding under a torque above mu m g R", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    pizza.mu = 2.0 / 3.0;
    pizza.tau[3] = 40.0;
    SapSolver solver = MakeSolver(ls);
    const RunSummary run = Simulate(pizza, solver, 10);
    Report("Sliding", ls, run);
    REQUIRE(run.ok);
    CHECK(run.max_momentum_error < 1e-6);
    CHECK(run.last.v[3] > 0.0);
    for (int i = 0; i < 3; ++i) {
      const Vector3d gamma = run.last.gamma.segment<3>(3 * i);
      CHECK(gamma[2] > 0.0);
      CHECK(std::abs(gamma.head<2>().norm() - pizza.mu * gamma[2]) <= 4 * kEps * gamma[2]);
    }
  }
  // Backtracking limited to one trial cannot find a step: a line-search failure status.
  PizzaSaver pizza;
  pizza.mu = 2.0 / 3.0;
  pizza.tau[3] = 40.0;
  SapSolverParameters p;
  p.line_search = SapLineSearch::kBacktracking;
  p.backtracking.max_iterations = 1;
  SapSolver solver(p);
  const RunSummary run = Simulate(pizza, solver, 10);
  CHECK_FALSE(run.ok);
  CHECK(run.first_failure.outcome == StepOutcome::kNotConverged);
  CHECK(run.last.stats.termination == SapTermination::kLineSearchFailed);
  CHECK(run.first_failure.reason.find("line search") != std::string::npos);
}

TEST_CASE("Pizza saver: near-rigid stiction needs the near-rigid rule", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    pizza.mu = 2.0 / 3.0;
    pizza.k = 1e20;
    pizza.tau[3] = 20.0;
    SapSolver solver = MakeSolver(ls);
    // beta ~ 0: R_n ~ 5e-17, hopelessly ill-conditioned; the solve must fail or be right,
    // never lie. The backtracking search fails (Armijo). The exact search resolves the
    // line minimum to machine precision (line_search.cc; tests/solver/line_search_test.cc),
    // and then every step it accepts must meet SAP eq. 26, none stopping on the cost
    // criterion.
    PizzaSaver stiff = pizza;
    const RunSummary stiff_run = Simulate(stiff, solver, 30);
    if (stiff_run.ok) {
      CHECK(stiff_run.cost_terminations == 0);
      CHECK(stiff_run.max_momentum_error < 1e-6);
      std::printf("pizza NearRigid beta~0     %-12s certified, max momentum error %.3g\n",
                  ls == SapLineSearch::kExact ? "exact" : "backtracking",
                  stiff_run.max_momentum_error);
    } else {
      CHECK_FALSE(stiff_run.first_failure.reason.empty());
      std::printf("pizza NearRigid beta~0     %-12s fails at step %d: %s\n",
                  ls == SapLineSearch::kExact ? "exact" : "backtracking", stiff_run.steps,
                  stiff_run.first_failure.reason.c_str());
    }
    // beta = 1: near-rigid regularization, stiction as in the compliant case.
    pizza.beta = 1.0;
    const RunSummary run = Simulate(pizza, solver, 30);
    Report("NearRigidStiction", ls, run);
    REQUIRE(run.ok);
    CHECK(run.max_momentum_error < 1e-6);
    CheckStiction(pizza, run.last, 1e-9);
  }
}

TEST_CASE("Pizza saver: an exact guess converges with zero iterations", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    pizza.q[2] = -pizza.m * pizza.g / (3 * pizza.k);  // -1e-3: each contact carries m g / 3
    pizza.guess.setZero();
    SapSolverParameters p;
    p.line_search = ls;
    p.max_iterations = 0;
    SapSolver solver(p);
    ContactProblem problem;
    pizza.Build(&problem);
    SapSolverResult r;
    const StepStatus status = solver.Solve(problem, pizza.guess, &r);
    REQUIRE(status.ok());
    CHECK(r.stats.iterations == 0);
    CHECK(r.v == VectorXd::Zero(4));
    for (int i = 0; i < 3; ++i) CHECK(r.gamma[3 * i + 2] == Approx(0.1).epsilon(1e-12));
  }
}

// The kinds of Newton update (SapSolverStats): one island, so they add up to its iterations.
void CheckUpdateKindsAddUp(const SapSolverStats& stats) {
  CHECK(stats.num_islands == 1);
  CHECK(stats.predicted_updates + stats.active_set_updates + stats.smooth_updates ==
        stats.iterations);
}

TEST_CASE("SAP solver tells active-set changes from smooth Newton updates", "[solver]") {
  // Sliding under a torque above mu m g R: from the guess (v_z = 3 m/s: the three contacts
  // separating, no-contact region) the solution slides, so some update changes a region.
  PizzaSaver pizza;
  pizza.mu = 2.0 / 3.0;
  pizza.tau[3] = 40.0;
  SapSolver solver;
  ContactProblem problem;
  pizza.Build(&problem);
  SapSolverResult first;
  REQUIRE(solver.Solve(problem, pizza.guess, &first).ok());
  CheckUpdateKindsAddUp(first.stats);
  CHECK(first.stats.predicted_updates == 0);  // nothing predicted
  CHECK(first.stats.active_set_updates >= 1);
  // The next step from this solution: every contact slides at the guess and at the
  // solution, the spin only grows, so Newton converges on fixed regions.
  pizza.v = first.v;
  pizza.q += pizza.dt * pizza.v;
  pizza.Build(&problem);
  SapSolverResult next;
  REQUIRE(solver.Solve(problem, first.v, &next).ok());
  CheckUpdateKindsAddUp(next.stats);
  CHECK(next.stats.iterations >= 1);
  CHECK(next.stats.active_set_updates == 0);
  CHECK(next.stats.smooth_updates == next.stats.iterations);

  // Stiction predicted: the first direction follows the predicted model.
  PizzaSaver stuck;
  stuck.mu = 2.0 / 3.0;
  stuck.tau_d = 2 * stuck.dt;
  stuck.beta = 1.0;
  stuck.tau[3] = 20.0;
  stuck.q[2] = -stuck.m * stuck.g / (3 * stuck.k);
  stuck.guess.setZero();
  stuck.predict_stiction = true;
  stuck.Build(&problem);
  SapSolverResult predicted;
  REQUIRE(solver.Solve(problem, stuck.guess, &predicted).ok());
  CheckUpdateKindsAddUp(predicted.stats);
  CHECK(predicted.stats.predicted_updates >= 1);
}

TEST_CASE("Pizza saver: no constraints returns v*", "[solver]") {
  PizzaSaver pizza;
  ContactProblem problem;
  problem.Clear(pizza.dt);
  problem.AddClique(pizza.M);
  const VectorXd v_star = Vector4d(0, 0, -0.1, 0);
  problem.SetFreeMotionVelocity(v_star);
  SapSolver solver;
  SapSolverResult r;
  REQUIRE(solver.Solve(problem, pizza.guess, &r).ok());
  CHECK(r.v == v_star);
  CHECK(r.gamma.size() == 0);
  CHECK(r.stats.iterations == 0);
  CHECK(r.stats.termination == SapTermination::kNoConstraints);
}

TEST_CASE("SAP solver leaves cliques without constraints at v*", "[solver]") {
  // Clique 0: particle on the ground; clique 1: particle resting on particle 0; clique 2: a
  // free 2-dof body with no constraint.
  ContactProblem problem;
  const double dt = 1e-3;
  problem.Clear(dt);
  problem.AddClique(1.0 * MatrixXd::Identity(3, 3));
  problem.AddClique(2.0 * MatrixXd::Identity(3, 3));
  MatrixXd A2(2, 2);
  A2 << 2.0, 0.3, 0.3, 1.0;
  problem.AddClique(A2);
  VectorXd v_star(8);
  v_star << 0.1, 0, -0.5, 0, 0.2, -0.4, 0.7, -0.3;
  problem.SetFreeMotionVelocity(v_star);
  SapFrictionConeParameters params;
  params.near_rigid_threshold = 1.0;
  params.stiction_sigma = 1.0e-3;
  params.stiffness = 1e5;
  params.dissipation_time = 1e-3;
  params.phi0 = -1e-4;
  problem.AddConstraint(0, MatrixXd::Identity(3, 3), SapFrictionConeConstraint(params));
  problem.AddConstraint(0, -MatrixXd::Identity(3, 3), 1, MatrixXd::Identity(3, 3),
                        SapFrictionConeConstraint(params));
  VectorXd guess = VectorXd::Constant(8, 5.0);
  for (SapLineSearch ls : kLineSearches) {
    SapSolver solver = MakeSolver(ls);
    SapSolverResult r;
    REQUIRE(solver.Solve(problem, guess, &r).ok());
    CHECK(r.v.tail<2>() == v_star.tail<2>());
    CHECK(r.stats.num_participating_cliques == 2);
    CHECK(r.stats.num_participating_velocities == 6);
    CHECK(r.stats.momentum_error < 1e-6);
    // Momentum balance A (v - v*) = J^T gamma on each participating clique.
    const Vector3d j0 = r.gamma.segment<3>(0) - r.gamma.segment<3>(3);
    const Vector3d j1 = r.gamma.segment<3>(3);
    // (to eps_r of the scale of SAP eq. 26: max(||p||, ||j||), p = A v; D = 1 here).
    const double scale = std::max(j0.norm() + j1.norm(), r.v.head<6>().norm() * 2.0);
    CHECK((1.0 * (r.v.head<3>() - v_star.head<3>()) - j0).norm() < 1e-6 * scale);
    CHECK((2.0 * (r.v.segment<3>(3) - v_star.segment<3>(3)) - j1).norm() < 1e-6 * scale);
  }
}

TEST_CASE("SAP solver: dense and sparse Newton systems agree", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver dense_pizza, sparse_pizza;
    dense_pizza.mu = sparse_pizza.mu = 2.0 / 3.0;
    dense_pizza.tau[3] = sparse_pizza.tau[3] = 40.0;
    SapSolverParameters p;
    p.line_search = ls;
    p.dense_threshold = 1000;
    SapSolver dense_solver(p);
    p.dense_threshold = 0;
    SapSolver sparse_solver(p);
    const RunSummary dense = Simulate(dense_pizza, dense_solver, 10);
    const RunSummary sparse = Simulate(sparse_pizza, sparse_solver, 10);
    REQUIRE(dense.ok);
    REQUIRE(sparse.ok);
    CHECK(dense.iterations == sparse.iterations);
    CHECK((dense.last.v - sparse.last.v).norm() <= 1e-12 * dense.last.v.norm());
  }
}

TEST_CASE("SAP solver reports non-convergence instead of a wrong answer", "[solver]") {
  PizzaSaver pizza;
  pizza.mu = 2.0 / 3.0;
  pizza.tau[3] = 40.0;
  SapSolverParameters p;
  p.max_iterations = 1;
  SapSolver solver(p);
  ContactProblem problem;
  pizza.Build(&problem);
  SapSolverResult r;
  const StepStatus status = solver.Solve(problem, pizza.guess, &r);
  CHECK(status.outcome == StepOutcome::kNotConverged);
  CHECK(r.stats.termination == SapTermination::kMaxIterations);
  CHECK(r.stats.iterations == 1);
  CHECK(status.reason.find("maximum iterations") != std::string::npos);
  CHECK(r.stats.momentum_error > p.relative_tolerance);
}

TEST_CASE("SAP solver: a raised stop flag ends the solve as interrupted, a lowered one not",
          "[solver]") {
  PizzaSaver pizza;
  pizza.mu = 2.0 / 3.0;
  pizza.tau[3] = 40.0;
  ContactProblem problem;
  pizza.Build(&problem);
  SapSolver solver;
  std::atomic<bool> stop{false};
  solver.set_stop_flag(&stop);
  SapSolverResult r;
  REQUIRE(solver.Solve(problem, pizza.guess, &r).ok());
  const int iterations = r.stats.iterations;
  REQUIRE(iterations > 1);  // so the flag has an iteration to cut short
  stop = true;
  const StepStatus status = solver.Solve(problem, pizza.guess, &r);
  CHECK(status.outcome == StepOutcome::kInterrupted);
  CHECK(r.stats.termination == SapTermination::kInterrupted);
  CHECK(r.stats.iterations < iterations);
  CHECK(status.reason.find("interrupted") != std::string::npos);
}

TEST_CASE("SAP solver: a warmed-up solve does not allocate", "[solver]") {
  for (SapLineSearch ls : kLineSearches) {
    PizzaSaver pizza;
    pizza.mu = 2.0 / 3.0;
    pizza.tau[3] = 40.0;  // sliding: several Newton iterations with line searches
    SapSolver solver = MakeSolver(ls);
    ContactProblem problem;
    SapSolverResult r;
    pizza.Build(&problem);
    REQUIRE(solver.Solve(problem, pizza.guess, &r).ok());
    pizza.v = r.v;
    pizza.q += pizza.dt * pizza.v;
    const std::size_t before = testing::AllocationCount();
    pizza.Build(&problem);
    const std::size_t built = testing::AllocationCount();
    const StepStatus status = solver.Solve(problem, pizza.guess, &r);
    const std::size_t after = testing::AllocationCount();
    CHECK(built - before == 0);
    REQUIRE(status.ok());
    CHECK(r.stats.iterations > 1);
    CHECK(after - before == 0);
  }
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

// Three rigid bodies stacked on the ground, falling at 1 m/s onto their contacts (3 each),
// with contact frames turned about the normal and lever arms of a few centimetres.
void BuildStack(bool factored, ContactProblem* problem) {
  problem->Clear(1e-3);
  Eigen::Matrix<double, 6, 6> A = Eigen::Matrix<double, 6, 6>::Zero();
  A.diagonal() << 2e-3, 3e-3, 4e-3, 1.0, 1.0, 1.0;  // a 1 kg body, inertia about its origin
  A(0, 4) = A(4, 0) = 0.01;  // the origin off the centre of mass: coupled blocks
  for (int c = 0; c < 3; ++c) problem->AddClique(A);
  VectorXd v_star = VectorXd::Zero(18);
  for (int c = 0; c < 3; ++c) v_star[6 * c + 5] = -1.0;
  v_star[0] = 0.5;  // the bottom body spins about x as well
  problem->SetFreeMotionVelocity(v_star);
  SapFrictionConeParameters params;
  params.near_rigid_threshold = 1.0;
  params.stiction_sigma = 1.0e-3;
  params.mu = 0.5;
  params.stiffness = 1e6;
  params.dissipation_time = 1e-3;
  for (int level = 0; level < 3; ++level) {
    for (int i = 0; i < 3; ++i) {
      const double angle = 2.0 * M_PI * i / 3.0 + 0.3 * level;
      PointContactJacobian f;
      f.R_WC = Eigen::AngleAxisd(0.7 * i + level, Vector3d::UnitZ()).toRotationMatrix();
      const Vector3d p(0.05 * std::cos(angle), 0.05 * std::sin(angle), -0.05);
      f.r_W = {Vector3d(p.x(), p.y(), 0.05), p};  // below the body above, above the one below
      f.sign = {-1.0, 1.0};
      const int above = level, below = level - 1;
      if (below < 0) {
        f.r_W[0] = p;
        f.sign[0] = 1.0;
      }
      ContactProblem scratch;  // the dense blocks of the same contact
      if (!factored) {
        scratch.Clear(1e-3);
        for (int c = 0; c < 3; ++c) scratch.AddClique(A);
        scratch.AddPointContact(above, below, f, SapFrictionConeConstraint(params));
      }
      params.phi0 = -1e-5 * (i + 1);
      if (factored) {
        problem->AddPointContact(above, below, f, SapFrictionConeConstraint(params));
      } else if (below < 0) {
        problem->AddConstraint(above, scratch.DenseJacobian(0, 0), SapFrictionConeConstraint(params));
      } else {
        problem->AddConstraint(above, scratch.DenseJacobian(0, 0), below, scratch.DenseJacobian(0, 1),
                               SapFrictionConeConstraint(params));
      }
    }
  }
}

TEST_CASE("factored point-contact Jacobians solve as the same dense Jacobians", "[solver]") {
  // The solver's J v, J^T gamma and J^T G J take the factored form when a contact has one
  // (PointContactJacobian); the same problem with only the dense blocks it implies must
  // give the same solution, and the solve must be non-trivial (contacts pressing).
  ContactProblem factored, dense;
  BuildStack(true, &factored);
  BuildStack(false, &dense);
  REQUIRE(factored.entry(0).point_contact >= 0);
  REQUIRE(dense.entry(0).point_contact < 0);
  SapSolverParameters p;
  p.relative_tolerance = 1e-12;
  SapSolver solver(p);
  SapSolverResult a, b;
  REQUIRE(solver.Solve(factored, factored.v_star(), &a).ok());
  REQUIRE(solver.Solve(dense, dense.v_star(), &b).ok());
  CHECK(a.stats.iterations >= 2);
  CHECK((a.v - b.v).norm() <= 1e-10 * b.v.norm());
  CHECK((a.v_c - b.v_c).norm() <= 1e-10 * b.v_c.norm());
  CHECK((a.gamma - b.gamma).norm() <= 1e-8 * b.gamma.norm());
  int pressing = 0;
  for (int k = 0; k < 9; ++k) pressing += b.gamma[3 * k + 2] > 0.0;
  CHECK(pressing >= 6);
}

}  // namespace
}  // namespace csim::solver
