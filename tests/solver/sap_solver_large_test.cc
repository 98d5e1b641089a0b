// The SAP solver on a large problem (a grid of 150 six-velocity cliques with neighbour and
// ground contacts, like a settled pile): the block-sparse Newton system gives the dense
// path's answer, and a warmed-up solve does not allocate (analysis reused, numeric phase
// allocation-free).

#include <catch2/catch.hpp>

#include <random>

#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_solver.h"
#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr int kSide = 15, kRows = 10;  // 150 cliques

MatrixXd RandomJacobian(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  MatrixXd J(3, 6);
  for (int i = 0; i < 18; ++i) J.data()[i] = u(rng);
  return J;
}

// Cliques on a kSide x kRows grid; every clique touches the ground, and each touches its
// right and upper neighbours; v* moves everything into contact.
void BuildGrid(ContactProblem* problem) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1, 1);
  problem->Clear(2e-3);
  for (int c = 0; c < kSide * kRows; ++c) {
    MatrixXd B = MatrixXd::Random(6, 6);
    problem->AddClique(B * B.transpose() * 0.01 + MatrixXd::Identity(6, 6));
  }
  VectorXd v_star(6 * kSide * kRows);
  for (int i = 0; i < v_star.size(); ++i) v_star[i] = u(rng) - (i % 6 == 2 ? 1.0 : 0.0);
  problem->SetFreeMotionVelocity(v_star);
  SapFrictionConeParameters p;
  p.near_rigid_threshold = 1.0;
  p.stiction_sigma = 1.0e-3;
  p.mu = 1.0;
  p.stiffness = 1e8;
  p.dissipation_time = 2e-3;
  for (int c = 0; c < kSide * kRows; ++c) {
    p.phi0 = -1e-4 * (1 + u(rng));
    problem->AddConstraint(c, RandomJacobian(rng), SapFrictionConeConstraint(p));
    const int x = c % kSide, y = c / kSide;
    for (int d : {x + 1 < kSide ? c + 1 : -1, y + 1 < kRows ? c + kSide : -1}) {
      if (d < 0) continue;
      p.phi0 = 1e-4 * u(rng);
      problem->AddConstraint(c, RandomJacobian(rng), d, RandomJacobian(rng),
                             SapFrictionConeConstraint(p));
    }
  }
}

TEST_CASE("SAP solver on a large problem: block path equals dense, no allocation",
          "[solver][allocation]") {
  ContactProblem problem;
  BuildGrid(&problem);
  const VectorXd guess = VectorXd::Zero(problem.num_velocities());
  SapSolverParameters p;
  p.dense_threshold = 0;
  SapSolver block_solver(p);
  p.dense_threshold = 100000;
  SapSolver dense_solver(p);
  SapSolverResult block, dense;
  REQUIRE(block_solver.Solve(problem, guess, &block).ok());
  REQUIRE(dense_solver.Solve(problem, guess, &dense).ok());
  CHECK(block.stats.iterations >= 3);
  CHECK(block.stats.iterations == dense.stats.iterations);
  CHECK((block.v - dense.v).norm() <= 1e-10 * dense.v.norm());

  // Same problem again: the whole Newton loop, line searches included, allocates nothing.
  const std::size_t before = testing::AllocationCount();
  const bool ok = block_solver.Solve(problem, guess, &block).ok();
  CHECK(testing::AllocationCount() - before == 0);
  CHECK(ok);
}

TEST_CASE("SAP solver on a large problem: the returned v_c is J v and gamma its impulse",
          "[solver]") {
  // The solver carries J v and A v along its Newton steps instead of forming them again at
  // every iterate (sap_newton.cc, UpdateIterate): after several iterations what it returns
  // must still be the constraint velocities of the returned v, and the impulses and the
  // momentum residual must be those of that v.
  ContactProblem problem;
  BuildGrid(&problem);
  SapSolver solver;
  SapSolverResult r;
  REQUIRE(solver.Solve(problem, VectorXd::Zero(problem.num_velocities()), &r).ok());
  REQUIRE(r.stats.iterations >= 3);
  VectorXd jc = VectorXd::Zero(problem.num_velocities());  // J^T gamma
  double max_error = 0.0, max_gamma_error = 0.0, scale = 0.0;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const ConstraintEntry& e = problem.entry(k);
    VectorXd v_c = VectorXd::Zero(e.num_rows);
    for (int b = 0; b < e.num_cliques; ++b) {
      const int c = e.clique[b];
      v_c += problem.DenseJacobian(k, b) *
             r.v.segment(problem.clique_offset(c), problem.clique_size(c));
    }
    max_error = std::max(max_error, (r.v_c.segment(e.row_offset, e.num_rows) - v_c).norm());
    scale = std::max(scale, v_c.norm());
    VectorXd gamma(e.num_rows);
    e.constraint->Calc(v_c.data(), gamma.data(), nullptr, nullptr);
    max_gamma_error = std::max(
        max_gamma_error, (r.gamma.segment(e.row_offset, e.num_rows) - gamma).norm() /
                             std::max(1e-12, gamma.norm()));
    for (int b = 0; b < e.num_cliques; ++b) {
      const int c = e.clique[b];
      jc.segment(problem.clique_offset(c), problem.clique_size(c)) +=
          problem.DenseJacobian(k, b).transpose() * gamma;
    }
  }
  CHECK(max_error <= 1e-12 * (1.0 + scale));
  CHECK(max_gamma_error <= 1e-9);
  // Momentum residual A (v - v*) - J^T gamma, scaled as SAP eq. 32 (D = diag(A)^-1/2).
  VectorXd g(problem.num_velocities()), p_v(problem.num_velocities());
  VectorXd D(problem.num_velocities());
  for (int c = 0; c < problem.num_cliques(); ++c) {
    const int o = problem.clique_offset(c), m = problem.clique_size(c);
    p_v.segment(o, m) = problem.A(c) * r.v.segment(o, m);
    g.segment(o, m) = problem.A(c) * (r.v - problem.v_star()).segment(o, m) - jc.segment(o, m);
    D.segment(o, m) = problem.A(c).diagonal().cwiseSqrt().cwiseInverse();
  }
  const double error = D.cwiseProduct(g).norm() /
                       std::max(D.cwiseProduct(p_v).norm(), D.cwiseProduct(jc).norm());
  CHECK(error <= 1e-6);  // eps_r: the returned v meets the stopping criterion
  CHECK(error == Approx(r.stats.momentum_error).epsilon(1e-3).margin(1e-12));
}

}  // namespace
}  // namespace csim::solver
