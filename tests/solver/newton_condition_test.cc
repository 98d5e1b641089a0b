// The condition estimate of the Newton matrix at the solution (newton_condition.h) against
// the dense eigenvalues (Eigen::SelfAdjointEigenSolver) of the same matrix, formed here
// independently from the problem's dense A and J blocks and each constraint's G at the
// solution, island by island: piles of free bodies under every contact model, an island
// larger than the Lanczos budget, a chain on the floor through the articulated-body
// factorization and through the dense one; the same estimates on several threads; no
// allocation once warmed up.
//
// Accuracy stated (docs/design/sap-solver.md §6.1): both extreme Ritz values lie inside the
// spectrum, so the estimate never exceeds kappa_2(H) (up to round-off, 1e-9 here); islands of
// at most 60 velocities exhaust their Krylov space or converge, and the estimate agrees with
// the dense one to 1e-8; a larger island converges to 1e-6.

#include "engine/solver/newton_condition.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_scenes.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using integrator::ContactStepWorkspace;
using integrator::Gyroscopic;
using integrator::ThetaParameters;

const ThetaParameters kSymplectic{0.0, 1.0, Gyroscopic::kImplicit};
const ThetaParameters kMidpoint{0.5, 0.5, Gyroscopic::kImplicit};

// Two islands: a ball alone (6 velocities) and a brick with a box on it (12).
const char* kPile = R"(
csim: 1
materials:
  default: {stiffness: 1.0e6, dissipation_time: 2.0e-3, hunt_crossley: 5.0, friction: 0.8}
world:
  geometry: [{shape: halfspace}]
bodies:
  - {name: ball, mass: 0.5, geometry: [{shape: sphere, radius: 0.05}], pose: {position: [0, 0, 0.0499]},
     velocity: {linear: [0.3, 0, 0]}}
  - {name: brick, mass: 1.0, geometry: [{shape: box, size: [0.2, 0.1, 0.05]}], pose: {position: [0.3, 0, 0.0249]}}
  - {name: top, mass: 0.3, geometry: [{shape: box, size: [0.1, 0.1, 0.05]}], pose: {position: [0.32, 0, 0.0748]},
     velocity: {linear: [0.2, 0, 0]}}
)";

// A tower of `n` boxes on the floor: one island of 6 n velocities.
std::string Tower(int n) {
  std::string yaml = R"(
csim: 1
materials:
  default: {stiffness: 1.0e6, dissipation_time: 2.0e-3, hunt_crossley: 5.0, friction: 0.8}
world:
  geometry: [{shape: halfspace}]
bodies:
)";
  for (int i = 0; i < n; ++i) {
    yaml += "  - {name: b" + std::to_string(i) + ", mass: " + std::to_string(1.0 + 0.1 * i) +
            ", geometry: [{shape: box, size: [0.1, 0.08, 0.05]}], pose: {position: [" +
            std::to_string(0.002 * i) + ", 0, " + std::to_string(0.0249 + 0.0499 * i) + "]}}\n";
  }
  return yaml;
}

// Island i's Newton matrix H = A + J^T G J at the solution of the last solve, formed densely
// from the problem (its cliques in island order), with each G from the constraint at the
// solution's constraint velocities.
MatrixXd DenseIslandNewtonMatrix(const ContactProblem& p, const Islands& is, int i,
                                 const VectorXd& v_c) {
  std::vector<int> local(p.num_cliques(), -1);
  int n = 0;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    local[is.cliques[q]] = n;
    n += p.clique_size(is.cliques[q]);
  }
  MatrixXd H = MatrixXd::Zero(n, n);
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], m = p.clique_size(c);
    H.block(local[c], local[c], m, m) = p.DenseA(c);
  }
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    MatrixXd G(e.num_rows, e.num_rows);
    VectorXd gamma(e.num_rows);
    p.constraint(k).Calc(v_c.data() + e.row_offset, gamma.data(), G.data(), nullptr);
    for (int a = 0; a < e.num_cliques; ++a)
      for (int b = 0; b < e.num_cliques; ++b) {
        const int ca = e.clique[a], cb = e.clique[b];
        H.block(local[ca], local[cb], p.clique_size(ca), p.clique_size(cb)) +=
            p.DenseJacobian(k, a).transpose() * G * p.DenseJacobian(k, b);
      }
  }
  return H;
}

double DenseConditionNumber(const MatrixXd& H) {
  const VectorXd lambda =
      Eigen::SelfAdjointEigenSolver<MatrixXd>(H, Eigen::EigenvaluesOnly).eigenvalues();
  return lambda.maxCoeff() / lambda.minCoeff();
}

struct Stepper {
  Stepper(const std::string& yaml, const ThetaParameters& theta,
          contact::ContactModel model = contact::ContactModel::kSap)
      : scene(io::LoadSceneFromText(yaml, "scene.yaml", {})),
        theta(theta),
        ws(integrator::MakeStepWorkspace(scene.model, integrator::TreeSolver::kAuto)),
        cws(scene.model),
        state{0.0, scene.model.InitialQ(), scene.model.InitialV()} {
    contact.contact_model = model;
    contact.position_theta = theta.theta_q;
    cws.solver.set_condition_estimate(true);
  }
  void Steps(int n, double dt = 2e-3) {
    for (int s = 0; s < n; ++s)
      REQUIRE(integrator::StepWithContact(scene.model, theta, {}, contact, dt, true, state, ws, cws)
                  .ok());
  }
  // Every island's estimate against its dense kappa within `tolerance`, never above it.
  // Returns the number of islands checked.
  int CheckIslands(double tolerance) {
    const SapSolver& solver = cws.solver;
    double largest = 0.0;
    for (int i = 0; i < solver.num_islands(); ++i) {
      const MatrixXd H =
          DenseIslandNewtonMatrix(cws.problem, solver.islands(), i, cws.result.v_c);
      const double exact = DenseConditionNumber(H);
      const double estimate = solver.island_condition_number(i);
      INFO("island " << i << " of " << H.rows() << " velocities: estimate " << estimate
                     << ", dense " << exact);
      // Both the estimate and the dense eigenvalues carry round-off of about eps kappa
      // relative to lambda_min.
      const double round_off = 64.0 * std::numeric_limits<double>::epsilon() * exact;
      CHECK(estimate <= exact * (1.0 + 1e-9 + round_off));
      CHECK(estimate >= exact * (1.0 - tolerance - round_off));
      largest = std::max(largest, estimate);
    }
    CHECK(cws.result.stats.condition_number == largest);
    return solver.num_islands();
  }

  io::LoadedScene scene;
  ThetaParameters theta;
  integrator::StepWorkspace ws;
  ContactStepWorkspace cws;
  multibody::State state;
  contact::ContactParameters contact;
};

TEST_CASE("the condition estimate is the dense condition number of each island",
          "[solver][condition]") {
  using contact::ContactModel;
  for (const ContactModel model : {ContactModel::kSap, ContactModel::kLagged,
                                   ContactModel::kLaggedRegularized, ContactModel::kSimilar}) {
    INFO("contact model " << static_cast<int>(model));
    Stepper s(kPile, kSymplectic, model);
    for (int block = 0; block < 5; ++block) {
      s.Steps(20);
      CHECK(s.CheckIslands(1e-8) == 2);
    }
  }
}

TEST_CASE("the condition estimate converges on an island larger than its Lanczos budget",
          "[solver][condition]") {
  Stepper s(Tower(12), kSymplectic);
  for (int block = 0; block < 3; ++block) {
    s.Steps(10);
    REQUIRE(s.cws.solver.num_islands() == 1);
    REQUIRE(s.cws.result.stats.num_participating_velocities == 72);
    s.CheckIslands(1e-6);
  }
  SECTION("and from below with a smaller budget") {
    LanczosParameters few;
    few.max_iterations = 8;
    s.cws.solver.condition_estimator().set_parameters(few);
    s.Steps(1);
    const MatrixXd H =
        DenseIslandNewtonMatrix(s.cws.problem, s.cws.solver.islands(), 0, s.cws.result.v_c);
    const double exact = DenseConditionNumber(H);
    CHECK(s.cws.result.stats.condition_number <= exact * (1.0 + 1e-9));
    CHECK(s.cws.result.stats.condition_number > 0.1 * exact);
  }
}

TEST_CASE("the condition estimate of a tree on the floor, by either factorization",
          "[solver][condition]") {
  // theta = 0: the island goes to the tree's articulated-body factorization (a clique
  // solver, matrix-free A); theta = 1/2: its dense block and the block Cholesky.
  for (const ThetaParameters& theta : {kSymplectic, kMidpoint}) {
    INFO("theta " << theta.theta);
    Stepper s(testing::BallChainOnTheFloorScene(), theta);  // one tree of 18 velocities
    s.Steps(100, 1e-3);
    REQUIRE((s.cws.problem.clique_solver(0) != nullptr) == (theta.theta == 0.0));
    CHECK(s.CheckIslands(1e-8) == 1);
  }
}

TEST_CASE("the condition estimate is the same on several threads", "[solver][condition][threads]") {
  Stepper one(kPile, kSymplectic), three(kPile, kSymplectic);
  three.cws.solver.set_num_threads(3);
  for (int step = 0; step < 60; ++step) {
    one.Steps(1);
    three.Steps(1);
    REQUIRE(one.cws.solver.num_islands() == three.cws.solver.num_islands());
    CHECK(one.cws.result.stats.condition_number == three.cws.result.stats.condition_number);
  }
}

TEST_CASE("a warmed-up step with the condition estimate allocates nothing",
          "[solver][condition][allocation]") {
  for (const ThetaParameters& theta : {kSymplectic, kMidpoint}) {
    for (const std::string& yaml : {std::string(kPile), testing::BallChainOnTheFloorScene()}) {
      for (int threads : {1, 2}) {
        INFO("theta " << theta.theta << ", threads " << threads);
        Stepper s(yaml, theta);
        s.cws.solver.set_num_threads(threads);
        s.Steps(150, 1e-3);
        const std::size_t before = testing::AllocationCount();
        for (int n = 0; n < 50; ++n)
          integrator::StepWithContact(s.scene.model, s.theta, {}, s.contact, 1e-3, true, s.state,
                                      s.ws, s.cws);
        CHECK(testing::AllocationCount() - before == 0);
        CHECK(std::isfinite(s.cws.result.stats.condition_number));
      }
    }
  }
}

}  // namespace
}  // namespace csim::solver
