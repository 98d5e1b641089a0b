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

}  // namespace
}  // namespace csim::solver
