// Islands: the partition of a problem into independent groups of cliques, and the solver's
// per-island Newton iterations: an island's result does not depend on the other islands,
// and solving islands together or one by one gives the same answer to the tolerance.

#include "engine/solver/islands.h"

#include <catch2/catch.hpp>

#include <random>

#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_solver.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

SapFrictionConeParameters Contact(double phi0) {
  SapFrictionConeParameters p;
  p.near_rigid_threshold = 1.0;
  p.stiction_sigma = 1.0e-3;
  p.mu = 1.0;
  p.stiffness = 1e8;
  p.dissipation_time = 2e-3;
  p.phi0 = phi0;
  return p;
}

TEST_CASE("islands are the connected components of the clique graph", "[solver][islands]") {
  ContactProblem problem;
  problem.Clear(1e-3);
  for (int c = 0; c < 6; ++c) problem.AddClique(MatrixXd::Identity(2, 2));
  problem.SetFreeMotionVelocity(VectorXd::Zero(12));
  const MatrixXd J = MatrixXd::Ones(3, 2);
  problem.AddConstraint(5, J, 4, J, SapFrictionConeConstraint(Contact(0)));  // k = 0
  problem.AddConstraint(2, J, SapFrictionConeConstraint(Contact(0)));        // k = 1
  problem.AddConstraint(1, J, 0, J, SapFrictionConeConstraint(Contact(0)));  // k = 2
  problem.AddConstraint(0, J, SapFrictionConeConstraint(Contact(0)));        // k = 3
  const std::vector<int> reduced_offset = {0, 2, 4, -1, 6, 8};               // 3 idle
  Islands is;
  FindIslands(problem, reduced_offset, &is);
  REQUIRE(is.num_islands == 3);
  CHECK(is.island_of_clique == std::vector<int>{0, 0, 1, -1, 2, 2});
  CHECK(is.clique_start == std::vector<int>{0, 2, 3, 5});
  CHECK(is.cliques == std::vector<int>{0, 1, 2, 4, 5});
  CHECK(is.constraint_start == std::vector<int>{0, 2, 3, 4});
  CHECK(is.constraints == std::vector<int>{2, 3, 1, 0});
  CHECK(is.num_velocities == std::vector<int>{4, 2, 4});  // two-velocity cliques
}

// Cliques of a pile of n six-velocity cliques from `seed` (added before any constraint).
void AddPileCliques(int n, unsigned seed, ContactProblem* problem, std::vector<double>* v_star) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int c = 0; c < n; ++c) {
    MatrixXd B(6, 6);
    for (int i = 0; i < 36; ++i) B.data()[i] = u(rng);
    problem->AddClique(0.01 * B * B.transpose() + MatrixXd::Identity(6, 6));
    for (int i = 0; i < 6; ++i) v_star->push_back(u(rng) - (i == 2 ? 1.0 : 0.0));
  }
}

// Its constraints: a ground contact per clique and a chain of contacts.
void AddPileConstraints(int first, int n, unsigned seed, ContactProblem* problem) {
  std::mt19937 rng(seed + 100);
  std::uniform_real_distribution<double> u(-1, 1);
  auto jacobian = [&] {
    MatrixXd J(3, 6);
    for (int i = 0; i < 18; ++i) J.data()[i] = u(rng);
    return J;
  };
  for (int c = first; c < first + n; ++c) {
    problem->AddConstraint(c, jacobian(), SapFrictionConeConstraint(Contact(-1e-4)));
    if (c + 1 < first + n)
      problem->AddConstraint(c, jacobian(), c + 1, jacobian(),
                             SapFrictionConeConstraint(Contact(1e-5 * u(rng))));
  }
}

// Pile X (6 cliques, seed 1), then optionally a second pile (4 cliques, seed `other`).
VectorXd SolvePiles(unsigned other, bool with_other, SapSolverResult* r) {
  ContactProblem problem;
  problem.Clear(2e-3);
  std::vector<double> v_star;
  AddPileCliques(6, 1, &problem, &v_star);
  if (with_other) AddPileCliques(4, other, &problem, &v_star);
  problem.SetFreeMotionVelocity(Eigen::Map<VectorXd>(v_star.data(), v_star.size()));
  AddPileConstraints(0, 6, 1, &problem);
  if (with_other) AddPileConstraints(6, 4, other, &problem);
  SapSolver solver;
  REQUIRE(solver.Solve(problem, VectorXd::Zero(problem.num_velocities()), r).ok());
  return r->v.head(36);
}

TEST_CASE("an island's solution does not depend on the other islands", "[solver][islands]") {
  SapSolverResult a, b, alone;
  const VectorXd x_a = SolvePiles(2, true, &a);
  const VectorXd x_b = SolvePiles(3, true, &b);
  CHECK(a.stats.num_islands == 2);
  CHECK(a.stats.mean_island_iterations <= a.stats.iterations);
  CHECK(x_a == x_b);  // bit-identical: same island, other neighbour island
  // Alone it meets eps_r instead of eps_r / sqrt(2): equal to the tolerance.
  const VectorXd x_alone = SolvePiles(0, false, &alone);
  CHECK(alone.stats.num_islands == 1);
  CHECK((x_alone - x_a).norm() <= 1e-5 * x_a.norm());
  CHECK(a.stats.momentum_error <= 1e-6);
}

TEST_CASE("a constraint that does not couple is deferred unless its cliques meet anyway",
          "[solver][islands]") {
  ContactProblem problem;
  problem.Clear(1e-3);
  for (int c = 0; c < 4; ++c) problem.AddClique(MatrixXd::Identity(2, 2));
  problem.SetFreeMotionVelocity(VectorXd::Zero(8));
  const MatrixXd J = MatrixXd::Ones(3, 2);
  problem.AddConstraint(0, J, 1, J, SapFrictionConeConstraint(Contact(0)));  // k = 0, couples
  problem.AddConstraint(1, J, 2, J, SapFrictionConeConstraint(Contact(0)));  // k = 1, deferred
  problem.AddConstraint(2, J, 3, J, SapFrictionConeConstraint(Contact(0)));  // k = 2, couples
  problem.AddConstraint(3, J, 2, J, SapFrictionConeConstraint(Contact(0)));  // k = 3: 2, 3 meet
  const std::vector<int> reduced_offset = {0, 2, 4, 6};
  const std::vector<char> couples = {1, 0, 1, 0};
  Islands is;
  FindIslands(problem, reduced_offset, &is, &couples);
  REQUIRE(is.num_islands == 2);
  CHECK(is.island_of_clique == std::vector<int>{0, 0, 1, 1});
  CHECK(is.num_deferred == 1);
  CHECK(is.constraint_island == std::vector<int>{0, -1, 1, 1});
  CHECK(is.constraints == std::vector<int>{0, 2, 3});  // k = 1 is in no island
  FindIslands(problem, reduced_offset, &is);  // every constraint couples
  CHECK(is.num_islands == 1);
  CHECK(is.num_deferred == 0);
}

// Two point masses (1 kg, velocities along x, y, z) on a line: mass 0 on the ground
// (contact with the world, in contact), mass 1 `gap` above it moving at v1 (m/s, along z).
// The contact between them, rows [t1, t2, n] with n along +z from 0 to 1, is apart at the
// guess (both at rest). Returns the solve's result.
SapSolverResult SolveStack(double gap, double v1, bool defer, SapSolver* solver) {
  const double dt = 1e-3, g = 9.81;
  ContactProblem problem;
  problem.Clear(dt);
  problem.AddClique(MatrixXd::Identity(3, 3));
  problem.AddClique(MatrixXd::Identity(3, 3));
  VectorXd v_star(6);
  v_star << 0, 0, -g * dt, 0.1, 0, v1 - g * dt;
  problem.SetFreeMotionVelocity(v_star);
  problem.AddConstraint(0, MatrixXd::Identity(3, 3), SapFrictionConeConstraint(Contact(0)));
  problem.AddConstraint(1, MatrixXd::Identity(3, 3), 0, -MatrixXd::Identity(3, 3),
                        SapFrictionConeConstraint(Contact(gap)));
  SapSolverParameters p;
  p.defer_separated = defer;
  solver->set_parameters(p);
  SapSolverResult r;
  REQUIRE(solver->Solve(problem, VectorXd::Zero(6), &r).ok());
  return r;
}

TEST_CASE("a deferred contact that touches at the solution joins its islands, same solution",
          "[solver][islands]") {
  SapSolver deferring, plain;
  // 0.5 mm apart closing at 1 m/s: the contact closes within the step (dt 1e-3).
  const SapSolverResult a = SolveStack(5e-4, -1.0, true, &deferring);
  const SapSolverResult b = SolveStack(5e-4, -1.0, false, &plain);
  REQUIRE(deferring.merged_islands().size() == 2);  // the two islands of the first round
  CHECK(plain.merged_islands().empty());
  CHECK(a.stats.num_islands == 1);
  CHECK(a.gamma[5] > 0.0);  // the deferred contact pushes
  CHECK(a.stats.momentum_error <= 1e-6);
  CHECK((a.v - b.v).lpNorm<Eigen::Infinity>() <= 1e-5);
  CHECK((a.gamma - b.gamma).lpNorm<Eigen::Infinity>() <= 1e-5 * b.gamma.lpNorm<Eigen::Infinity>());
  // The replaced islands' Newton work is counted: more rounds than the merged island's own.
  CHECK(a.stats.iterations > deferring.island_iterations(0));
}

TEST_CASE("a deferred contact that stays apart keeps the islands split, zero impulse",
          "[solver][islands]") {
  SapSolver deferring, plain;
  // 5 cm apart and separating: the two masses never meet.
  const SapSolverResult a = SolveStack(5e-2, 0.5, true, &deferring);
  const SapSolverResult b = SolveStack(5e-2, 0.5, false, &plain);
  CHECK(deferring.merged_islands().empty());
  CHECK(a.stats.num_islands == 2);
  CHECK(b.stats.num_islands == 1);
  CHECK(a.gamma.tail(3).isZero(0.0));
  CHECK(a.v_c.tail(3).isApprox(a.v.tail(3) - a.v.head(3)));  // J v of the deferred contact
  CHECK(a.stats.momentum_error <= 1e-6);
  CHECK((a.v - b.v).lpNorm<Eigen::Infinity>() <= 1e-6);
}

}  // namespace
}  // namespace csim::solver
