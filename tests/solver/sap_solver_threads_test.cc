// SapSolver with several threads on a problem of many islands: v, gamma and every
// statistic but the timings are bit-identical for 1, 2 and 4 threads; each island's
// velocities equal the island solved alone as its own problem with the same (split)
// tolerances, and `iterations` is the largest island's count; a failure reports the
// lowest-numbered failing island whatever the thread count; the per-island sizes and
// iterations the solver reports add up to its statistics; a warmed-up solve with two
// threads does not allocate.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/solver/sap_friction_cone_constraint.h"
#include "engine/solver/sap_solver.h"
#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// One constraint of the generated problem, on global cliques (b = -1: the world).
struct ConstraintSpec {
  int a = -1, b = -1;
  MatrixXd Ja, Jb;
  SapFrictionConeParameters params;
};

// kPiles piles of 1..6 six-velocity cliques. A pile's cliques are spread over the clique
// order (islands interleave, as in a scene); every clique has a ground contact and a
// contact with the next clique of its pile, so each pile is one island. Constraints are
// listed pile by pile, each pile padded to an even count, so a pile's constraint rows keep
// the alignment they have when the pile is solved alone (Eigen's vectorized kernels start
// at an aligned address: a different alignment could change the last bit).
struct ManyPiles {
  static constexpr int kPiles = 24;
  std::vector<int> pile_of_clique;
  std::vector<MatrixXd> A;
  std::vector<VectorXd> v_star;  // per clique
  std::vector<std::vector<ConstraintSpec>> constraints;  // per pile
  int nan_pile = -1;  // this pile's v* is NaN (a non-finite island)

  ManyPiles() {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int pile = 0; pile < kPiles; ++pile)
      for (int i = 0; i < 1 + (pile * 7) % 6; ++i) pile_of_clique.push_back(pile);
    std::shuffle(pile_of_clique.begin(), pile_of_clique.end(), rng);
    auto random = [&](int rows, int cols) {
      MatrixXd M(rows, cols);
      for (int i = 0; i < rows * cols; ++i) M.data()[i] = u(rng);
      return M;
    };
    for (size_t c = 0; c < pile_of_clique.size(); ++c) {
      const MatrixXd B = random(6, 6);
      A.push_back(0.01 * B * B.transpose() + MatrixXd::Identity(6, 6));
      VectorXd w = random(6, 1);
      w[2] -= 1.0;  // falling onto the ground and onto each other
      v_star.push_back(w);
    }
    constraints.resize(kPiles);
    for (int pile = 0; pile < kPiles; ++pile) {
      std::vector<int> cliques;
      for (size_t c = 0; c < pile_of_clique.size(); ++c)
        if (pile_of_clique[c] == pile) cliques.push_back(static_cast<int>(c));
      for (size_t i = 0; i < cliques.size(); ++i) {
        constraints[pile].push_back({cliques[i], -1, random(3, 6), {}, Contact(-1e-4 * (1 + u(rng)))});
        if (i + 1 < cliques.size())
          constraints[pile].push_back(
              {cliques[i], cliques[i + 1], random(3, 6), random(3, 6), Contact(1e-5 * u(rng))});
      }
      if (constraints[pile].size() % 2 == 1)
        constraints[pile].push_back({cliques[0], -1, random(3, 6), {}, Contact(-2e-4)});
    }
  }

  static SapFrictionConeParameters Contact(double phi0) {
    SapFrictionConeParameters p;
    p.near_rigid_threshold = 1.0;
    p.stiction_sigma = 1.0e-3;
    p.mu = 0.8;
    p.stiffness = 1e8;
    p.dissipation_time = 2e-3;
    p.phi0 = phi0;
    return p;
  }

  // The whole problem (only_pile < 0) or one pile alone, its cliques in the same order;
  // local_of_clique maps global cliques to the built problem's (-1: left out).
  void Build(int only_pile, ContactProblem* problem, std::vector<int>* local_of_clique) const {
    problem->Clear(2e-3);
    local_of_clique->assign(pile_of_clique.size(), -1);
    std::vector<double> w;
    for (size_t c = 0; c < pile_of_clique.size(); ++c) {
      if (only_pile >= 0 && pile_of_clique[c] != only_pile) continue;
      (*local_of_clique)[c] = problem->AddClique(A[c]);
      w.insert(w.end(), v_star[c].data(), v_star[c].data() + 6);
      if (pile_of_clique[c] == nan_pile) w.back() = std::nan("");
    }
    problem->SetFreeMotionVelocity(Eigen::Map<VectorXd>(w.data(), w.size()));
    for (int pile = 0; pile < kPiles; ++pile) {
      if (only_pile >= 0 && pile != only_pile) continue;
      for (const ConstraintSpec& k : constraints[pile]) {
        const int a = (*local_of_clique)[k.a];
        if (k.b < 0) {
          problem->AddConstraint(a, k.Ja, SapFrictionConeConstraint(k.params));
        } else {
          problem->AddConstraint(a, k.Ja, (*local_of_clique)[k.b], k.Jb,
                                 SapFrictionConeConstraint(k.params));
        }
      }
    }
  }
};

SapSolverResult SolveWithThreads(const ContactProblem& problem, const SapSolverParameters& p,
                                 int threads) {
  SapSolver solver(p);
  solver.set_num_threads(threads);
  CHECK(solver.num_threads() == threads);
  SapSolverResult r;
  solver.Solve(problem, VectorXd::Zero(problem.num_velocities()), &r);
  return r;
}

// Bit for bit (NaN included).
bool SameBits(const double* a, const double* b, Eigen::Index n) {
  return std::memcmp(a, b, sizeof(double) * n) == 0;
}
bool SameBits(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() && SameBits(a.data(), b.data(), a.size());
}
bool SameBits(double a, double b) { return SameBits(&a, &b, 1); }

void CheckIdentical(const SapSolverResult& a, const SapSolverResult& b) {
  CHECK(a.status.outcome == b.status.outcome);
  CHECK(a.status.reason == b.status.reason);
  CHECK(SameBits(a.v, b.v));
  CHECK(SameBits(a.gamma, b.gamma));
  CHECK(SameBits(a.v_c, b.v_c));
  CHECK(a.stats.termination == b.stats.termination);
  CHECK(a.stats.iterations == b.stats.iterations);
  CHECK(a.stats.line_search_iterations == b.stats.line_search_iterations);
  CHECK(SameBits(a.stats.momentum_error, b.stats.momentum_error));
  CHECK(SameBits(a.stats.cost, b.stats.cost));
  CHECK(a.stats.num_islands == b.stats.num_islands);
  CHECK(SameBits(a.stats.mean_island_iterations, b.stats.mean_island_iterations));
}

TEST_CASE("SAP solver: islands on 1, 2 and 4 threads give bit-identical results",
          "[solver][threads]") {
  const ManyPiles piles;
  ContactProblem problem;
  std::vector<int> local;
  piles.Build(-1, &problem, &local);
  for (SapLineSearch ls : {SapLineSearch::kExact, SapLineSearch::kBacktracking}) {
    SapSolverParameters p;
    p.line_search = ls;
    const SapSolverResult one = SolveWithThreads(problem, p, 1);
    REQUIRE(one.status.ok());
    CHECK(one.stats.num_islands == ManyPiles::kPiles);
    CHECK(one.stats.iterations >= 3);
    for (int threads : {2, 4}) {
      INFO(threads << " threads");
      CheckIdentical(one, SolveWithThreads(problem, p, threads));
    }
  }
}

TEST_CASE("SAP solver: an island solves as it does alone with the same tolerances",
          "[solver][threads]") {
  const ManyPiles piles;
  ContactProblem problem;
  std::vector<int> local;
  piles.Build(-1, &problem, &local);
  SapSolverParameters p;
  const SapSolverResult all = SolveWithThreads(problem, p, 2);
  REQUIRE(all.status.ok());
  // Alone, an island meets SAP eq. 26 with the tolerances as given; in a problem of K
  // islands with eps_a / sqrt(K) and eps_r / sqrt(2) (sap_solver.h): pass those.
  SapSolverParameters alone_p = p;
  alone_p.absolute_tolerance = p.absolute_tolerance / std::sqrt(static_cast<double>(ManyPiles::kPiles));
  alone_p.relative_tolerance = p.relative_tolerance / std::sqrt(2.0);
  int max_iterations = 0, line_search_iterations = 0;
  for (int pile = 0; pile < ManyPiles::kPiles; ++pile) {
    ContactProblem alone_problem;
    std::vector<int> alone_local;
    piles.Build(pile, &alone_problem, &alone_local);
    const SapSolverResult alone = SolveWithThreads(alone_problem, alone_p, 1);
    REQUIRE(alone.status.ok());
    CHECK(alone.stats.num_islands == 1);
    max_iterations = std::max(max_iterations, alone.stats.iterations);
    line_search_iterations += alone.stats.line_search_iterations;
    for (size_t c = 0; c < local.size(); ++c) {
      if (alone_local[c] < 0) continue;
      INFO("pile " << pile << ", clique " << c);
      CHECK(all.v.segment(6 * local[c], 6) == alone.v.segment(6 * alone_local[c], 6));
    }
  }
  CHECK(all.stats.iterations == max_iterations);  // rounds until the last island stopped
  CHECK(all.stats.line_search_iterations == line_search_iterations);
}

// Piles in island order (islands are numbered by their first clique).
std::vector<int> PilesInIslandOrder(const ManyPiles& piles) {
  std::vector<int> order;
  for (int pile : piles.pile_of_clique)
    if (std::find(order.begin(), order.end(), pile) == order.end()) order.push_back(pile);
  return order;
}

TEST_CASE("SAP solver: per-island sizes and iterations of the last solve", "[solver][threads]") {
  const ManyPiles piles;
  ContactProblem problem;
  std::vector<int> local;
  piles.Build(-1, &problem, &local);
  SapSolver solver;
  SapSolverResult r;
  REQUIRE(solver.Solve(problem, VectorXd::Zero(problem.num_velocities()), &r).ok());
  REQUIRE(solver.num_islands() == ManyPiles::kPiles);
  // Island sizes are the piles' sizes (as multisets: islands are numbered by first clique).
  std::vector<int> sizes, pile_sizes(ManyPiles::kPiles, 0);
  for (int pile : piles.pile_of_clique) ++pile_sizes[pile];
  int max_iterations = 0;
  double weighted = 0.0;
  for (int i = 0; i < solver.num_islands(); ++i) {
    sizes.push_back(solver.island_num_cliques(i));
    max_iterations = std::max(max_iterations, solver.island_iterations(i));
    weighted += 6.0 * solver.island_num_cliques(i) * solver.island_iterations(i);
  }
  std::sort(sizes.begin(), sizes.end());
  std::sort(pile_sizes.begin(), pile_sizes.end());
  CHECK(sizes == pile_sizes);
  // The step statistics are these islands' summaries.
  CHECK(max_iterations == r.stats.iterations);
  CHECK(weighted / problem.num_velocities() == Approx(r.stats.mean_island_iterations).epsilon(1e-12));
  // A problem without constraints has no islands (nothing stale from the last solve).
  ContactProblem empty;
  empty.Clear(1e-3);
  empty.AddClique(MatrixXd::Identity(6, 6));
  empty.SetFreeMotionVelocity(VectorXd::Ones(6));
  REQUIRE(solver.Solve(empty, VectorXd::Zero(6), &r).ok());
  CHECK(solver.num_islands() == 0);
}

TEST_CASE("SAP solver: a failure reports the lowest-numbered failing island on any thread count",
          "[solver][threads]") {
  ManyPiles piles;
  const std::vector<int> island_order = PilesInIslandOrder(piles);
  SapSolverParameters p;
  p.max_iterations = 2;  // the easy islands converge, the hard ones run out of iterations
  SapSolverParameters alone_p = p;
  alone_p.absolute_tolerance = p.absolute_tolerance / std::sqrt(static_cast<double>(ManyPiles::kPiles));
  alone_p.relative_tolerance = p.relative_tolerance / std::sqrt(2.0);
  // A NaN in the last island and then in the first: the status is the first failing
  // island's (max iterations, then non-finite), whatever the thread count.
  for (int nan_pile : {island_order.back(), island_order.front()}) {
    piles.nan_pile = nan_pile;
    ContactProblem problem;
    std::vector<int> local;
    piles.Build(-1, &problem, &local);
    // The expected outcome: that of the lowest-numbered island failing alone.
    SapTermination expected = SapTermination::kOptimality;
    int failing = 0;
    for (int pile : island_order) {
      ContactProblem alone_problem;
      std::vector<int> alone_local;
      piles.Build(pile, &alone_problem, &alone_local);
      const SapSolverResult alone = SolveWithThreads(alone_problem, alone_p, 1);
      if (alone.status.ok()) continue;
      if (failing++ == 0) expected = alone.stats.termination;
    }
    INFO("NaN in island " << (nan_pile == island_order.front() ? "0" : "K - 1"));
    CHECK(failing > 1);                       // several islands fail ...
    CHECK(failing < ManyPiles::kPiles);       // ... but not all
    CHECK(expected == (nan_pile == island_order.front() ? SapTermination::kNonFinite
                                                        : SapTermination::kMaxIterations));
    const SapSolverResult one = SolveWithThreads(problem, p, 1);
    CHECK(one.stats.termination == expected);
    CHECK_FALSE(one.status.ok());
    for (int threads : {2, 4}) {
      INFO(threads << " threads");
      CheckIdentical(one, SolveWithThreads(problem, p, threads));
    }
  }
}

TEST_CASE("SAP solver: a warmed-up solve on two threads does not allocate",
          "[solver][threads][allocation]") {
  const ManyPiles piles;
  ContactProblem problem;
  std::vector<int> local;
  piles.Build(-1, &problem, &local);
  SapSolver solver;
  solver.set_num_threads(2);
  SapSolverResult r;
  const VectorXd guess = VectorXd::Zero(problem.num_velocities());
  REQUIRE(solver.Solve(problem, guess, &r).ok());
  const std::size_t before = testing::AllocationCount();
  const bool ok = solver.Solve(problem, guess, &r).ok();
  CHECK(testing::AllocationCount() - before == 0);
  CHECK(ok);
}

}  // namespace
}  // namespace csim::solver
