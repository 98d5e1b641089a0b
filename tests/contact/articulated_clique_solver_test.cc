// The contact solve's articulated-body factorization of a tree's Newton block
// (articulated_clique_solver.h), on a hinged chain of eight capsules lying on the floor with
// one hinge at its limit, swung along the floor by its first hinge:
//   - every floor contact's dense Jacobian equals W B_body (the factored form it is given);
//   - for random G blocks, the Newton system solves H x = b, with the chain's block handed
//     to the articulated-body factorization, as the LLT of the dense H = A + sum J^T G J;
//   - stepping with the recursions and with the dense Cholesky of A's block (which leaves
//     the contact solve on the block-sparse Cholesky) gives the same steps, up to the
//     solver's tolerance, with the same Newton iterations.

#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "engine/contact/contact_problem_builder.h"
#include "engine/integrator/contact_step.h"
#include "engine/io/scene_loader.h"
#include "engine/multibody/crba.h"
#include "engine/multibody/jacobians.h"
#include "engine/multibody/kinematics.h"
#include "engine/multibody/tree_topology.h"
#include "engine/solver/islands.h"
#include "engine/solver/newton_system.h"
#include "tests/support/allocation_counter.h"

namespace csim::contact {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

std::string ChainScene() {
  std::string s = R"(
csim: 1
settings: {time_step: 1.0e-3, duration: 1.0}
world: {geometry: [{shape: halfspace}]}
bodies:
)";
  for (int i = 0; i < 8; ++i)
    s += "  - {name: l" + std::to_string(i) + ", mass: 0.1, geometry: [{shape: capsule, "
         "radius: 0.01, length: 0.08, pose: {position: [0, 0, -0.05]}}]}\n";
  s += "joints:\n";
  s += "  - {name: j0, type: revolute, parent: world, child: l0, axis: [1, 0, 0], "
       "pose: {position: [0, 0, 0.0099]}, initial: {q: [1.5707963267948966]}}\n";
  for (int i = 1; i < 8; ++i) {
    const bool vertical = i % 2 == 1;  // about the laid-out rope's vertical: along the floor
    std::string extra;
    if (i == 1) extra = ", initial: {q: [0.3], v: [3.0]}";  // swung along the floor
    if (i == 3) extra = ", limits: {lower: [-0.2], upper: [0.02]}, initial: {q: [0.02]}";
    s += "  - {name: j" + std::to_string(i) + ", type: revolute, parent: l" +
         std::to_string(i - 1) + ", child: l" + std::to_string(i) + ", axis: " +
         (vertical ? "[0, 1, 0]" : "[1, 0, 0]") + ", pose: {position: [0, 0, -0.1]}" + extra +
         "}\n";
  }
  return s;
}

// Forwards to another CliqueSolver and counts the factorizations.
class CountingCliqueSolver final : public solver::CliqueSolver {
 public:
  explicit CountingCliqueSolver(solver::CliqueSolver* inner) : inner_(inner) {}
  void ClearTerms() override { inner_->ClearTerms(); }
  void AddBodyTerm(int body, const Eigen::Matrix<double, 6, 6>& K) override {
    inner_->AddBodyTerm(body, K);
  }
  void AddVelocityTerm(int j, double g) override { inner_->AddVelocityTerm(j, g); }
  bool Factor() override { return ++factors, inner_->Factor(); }
  void Solve(double* x) override { inner_->Solve(x); }
  void MultiplyA(const double* x, double* out) override { inner_->MultiplyA(x, out); }
  void FormA(double* out) override { inner_->FormA(out); }
  void CalcBodyVelocities(const double* x) override { inner_->CalcBodyVelocities(x); }
  const Eigen::Matrix<double, 6, 1>& body_velocity(int body) const override {
    return inner_->body_velocity(body);
  }
  void ClearBodyForces() override { inner_->ClearBodyForces(); }
  void AddBodyForce(int body, const Eigen::Matrix<double, 6, 1>& F) override {
    inner_->AddBodyForce(body, F);
  }
  void ApplyBodyForces(double* out) override { inner_->ApplyBodyForces(out); }
  void BodyJacobianRows(int body, const Eigen::Matrix<double, 3, 6>& W, double* J) override {
    inner_->BodyJacobianRows(body, W, J);
  }
  int factors = 0;

 private:
  solver::CliqueSolver* inner_;
};

TEST_CASE("articulated-body factorization of a tree's Newton block", "[contact][clique-solver]") {
  const io::LoadedScene scene = io::LoadSceneFromText(ChainScene(), "chain.yaml", {});
  const multibody::Model& model = scene.model;
  REQUIRE(model.nv == 8);
  integrator::StepWorkspace ws =
      integrator::MakeStepWorkspace(model, integrator::TreeSolver::kArticulated);
  integrator::ContactStepWorkspace cws(model);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  const VectorXd q0 = s.q;
  REQUIRE(integrator::StepWithContact(model, {0.0, 1.0, integrator::Gyroscopic::kImplicit}, {}, {},
                                      1e-3, false, s, ws, cws)
              .ok());
  solver::ContactProblem& problem = cws.problem;
  REQUIRE(problem.num_cliques() == 1);
  REQUIRE(problem.clique_solver(0) != nullptr);

  // The factored form of every floor contact against its dense Jacobian, with B_body from
  // the frame Jacobian at q0 ([w; v of the origin] in the body's axes).
  multibody::Workspace kin = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, q0, VectorXd::Zero(model.nv), kin);
  // The tree's block of A (theta = 0: M, no diagonal terms), from the composite rigid-body
  // algorithm: the problem keeps none (a matrix-free clique), and FormA must give it.
  multibody::CalcMassMatrix(model, kin);
  const MatrixXd A_ref = kin.M.ToDense();
  CHECK_FALSE(problem.has_A(0));
  CHECK((problem.DenseA(0) - A_ref).norm() <= 1e-13 * A_ref.norm());
  for (int i = 0; i < model.nv; ++i)
    CHECK(std::abs(problem.inverse_diagonal_of_A(0)[i] * A_ref(i, i) - 1.0) <= 1e-14);
  int body_terms = 0, velocity_terms = 0;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const solver::ConstraintEntry& e = problem.entry(k);
    if (e.body_jacobian < 0) {
      ++velocity_terms;  // the limit: one velocity
      continue;
    }
    ++body_terms;
    const solver::BodyJacobian& f = problem.body_jacobian(k);
    Eigen::Matrix<double, 6, Eigen::Dynamic> J_frame(6, model.nv);
    multibody::CalcFrameJacobian(model, kin, f.body, kin.X_WB[f.body].p, J_frame);
    MatrixXd B(6, model.nv);
    const Eigen::Matrix3d R_BW = kin.X_WB[f.body].R.transpose();
    B.topRows<3>() = R_BW * J_frame.topRows<3>();
    B.bottomRows<3>() = R_BW * J_frame.bottomRows<3>();
    const MatrixXd J = problem.DenseJacobian(k, 0);
    CHECK((f.W * B - J).norm() <= 1e-14 * (1.0 + J.norm()));
  }
  CHECK(body_terms >= 8);     // two per capsule on the floor
  CHECK(velocity_terms == 1);  // the limit of j3

  // The products the solver forms through the body maps (clique_solver.h), J_k x =
  // W_k (B_b x) and sum_k J_k^T gamma_k = sum_b B_b^T (sum W_k^T gamma_k), against the dense
  // Jacobians, and A x by the recursion against A_ref, for random x and gamma; warmed up,
  // they allocate nothing.
  {
    std::mt19937 rng_maps(3);
    std::normal_distribution<double> unit;
    solver::CliqueSolver& maps = *problem.clique_solver(0);
    const int m = problem.num_constraints();
    VectorXd x(model.nv), expected_force = VectorXd::Zero(model.nv);
    for (int i = 0; i < model.nv; ++i) x[i] = unit(rng_maps);
    MatrixXd gamma(3, m), expected_velocity(3, m), by_maps(3, m);
    gamma.setZero();
    expected_velocity.setZero();
    by_maps.setZero();
    for (int k = 0; k < m; ++k) {
      if (problem.entry(k).body_jacobian < 0) continue;
      for (int r = 0; r < 3; ++r) gamma(r, k) = unit(rng_maps);
      expected_velocity.col(k) = problem.DenseJacobian(k, 0) * x;
      expected_force += problem.DenseJacobian(k, 0).transpose() * gamma.col(k);
    }
    for (int pass = 0; pass < 2; ++pass) {
      VectorXd force = VectorXd::Zero(model.nv), Ax(model.nv);
      const std::size_t before = testing::AllocationCount();
      maps.CalcBodyVelocities(x.data());
      maps.ClearBodyForces();
      for (int k = 0; k < m; ++k) {
        if (problem.entry(k).body_jacobian < 0) continue;
        const solver::BodyJacobian& f = problem.body_jacobian(k);
        by_maps.col(k).noalias() = f.W * maps.body_velocity(f.body);
        maps.AddBodyForce(f.body, f.W.transpose() * gamma.col(k));
      }
      maps.ApplyBodyForces(force.data());
      maps.MultiplyA(x.data(), Ax.data());
      if (pass == 1) CHECK(testing::AllocationCount() == before);
      const VectorXd Ax_dense = A_ref * x;
      CHECK((Ax - Ax_dense).norm() <= 1e-13 * Ax_dense.norm());
      CHECK((by_maps - expected_velocity).norm() <= 1e-13 * (1.0 + expected_velocity.norm()));
      CHECK((force - expected_force).norm() <= 1e-13 * (1.0 + expected_force.norm()));
    }
  }

  // H x = b through the Newton system (the island handed to the recursions) against the
  // dense H, for random G blocks.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> G_data;
  std::vector<int> G_offset;
  MatrixXd H = A_ref;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    const int n = problem.entry(k).num_rows;
    MatrixXd R(n, n);
    for (int i = 0; i < n * n; ++i) R.data()[i] = u(rng);
    const MatrixXd G = 1e3 * R * R.transpose();
    G_offset.push_back(static_cast<int>(G_data.size()));
    G_data.insert(G_data.end(), G.data(), G.data() + n * n);
    const MatrixXd J = problem.DenseJacobian(k, 0);
    H += J.transpose() * G * J;
  }
  VectorXd b(model.nv);
  for (int i = 0; i < model.nv; ++i) b[i] = u(rng);
  const VectorXd x_ref = H.llt().solve(b);
  CountingCliqueSolver counting(problem.clique_solver(0));
  problem.SetCliqueSolver(0, &counting);
  const std::vector<int> offset = {0};
  solver::Islands islands;
  solver::FindIslands(problem, offset, &islands);
  solver::NewtonSystem system;
  system.Setup(problem, offset, model.nv, 0, &islands);
  system.Assemble(G_data.data(), G_offset);
  REQUIRE(system.Factor());
  VectorXd x = b;
  system.Solve(x);
  CHECK(counting.factors == 1);
  // Warmed up, the island's assembly (limit included), factorization and solve allocate
  // nothing.
  const std::size_t before = testing::AllocationCount();
  system.Assemble(G_data.data(), G_offset);
  CHECK(system.Factor());
  VectorXd y = b;
  const std::size_t after_copy = testing::AllocationCount();
  system.Solve(y);
  CHECK(testing::AllocationCount() - after_copy == 0);
  CHECK(after_copy - before == 1);  // the copy y = b, nothing else
  CHECK((x - x_ref).norm() <= 1e-10 * x_ref.norm());
}

TEST_CASE("the clique solver's product with A includes A's diagonal terms",
          "[contact][clique-solver]") {
  // Under theta = 0 (the only scheme that registers clique solvers) A's diagonal terms are
  // zero; the product must still be M x + diag(d) x for any d it is prepared with.
  const io::LoadedScene scene = io::LoadSceneFromText(ChainScene(), "chain.yaml", {});
  const multibody::Model& model = scene.model;
  multibody::Workspace kin = multibody::MakeWorkspace(model);
  multibody::CalcKinematics(model, 0.0, model.InitialQ(), model.InitialV(), kin);
  multibody::CalcMassMatrix(model, kin);
  const multibody::TreeTopology topology = multibody::CalcTreeTopology(model);
  REQUIRE(topology.num_trees() == 1);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.1, 1.0);
  VectorXd d(model.nv), x(model.nv), Ax(model.nv);
  for (int i = 0; i < model.nv; ++i) d[i] = u(rng), x[i] = u(rng) - 0.5;
  ArticulatedCliqueSolver solver(model, topology, 0);
  solver.Prepare(&kin, &d);
  solver.MultiplyA(x.data(), Ax.data());
  const VectorXd expected = kin.M.ToDense() * x + d.cwiseProduct(x);
  CHECK((Ax - expected).norm() <= 1e-13 * expected.norm());
  solver.Prepare(&kin, nullptr);  // no diagonal terms: M x
  solver.MultiplyA(x.data(), Ax.data());
  const VectorXd Mx = kin.M.ToDense() * x;
  CHECK((Ax - Mx).norm() <= 1e-13 * Mx.norm());
}

TEST_CASE("contact steps with the tree's Newton block factored by the recursions equal the dense ones",
          "[contact][clique-solver]") {
  // 150 steps of the chain swung along the floor, each from the dense run's state, under
  // symplectic Euler (theta 0: the only scheme where the recursions factor the contact
  // solve's block). The two solve the same problem by the same Newton iterations, so their
  // velocities differ by round-off only, far below the 1e-6 the solver's tolerance would
  // allow; round-off may tip a step's last iteration either way, so a few counts may differ.
  const io::LoadedScene scene = io::LoadSceneFromText(ChainScene(), "chain.yaml", {});
  const multibody::Model& model = scene.model;
  integrator::StepWorkspace ws_art =
      integrator::MakeStepWorkspace(model, integrator::TreeSolver::kArticulated);
  integrator::StepWorkspace ws_dense =
      integrator::MakeStepWorkspace(model, integrator::TreeSolver::kDense);
  integrator::ContactStepWorkspace cws_art(model), cws_dense(model);
  multibody::State s{0.0, model.InitialQ(), model.InitialV()};
  int same_iterations = 0, steps = 150, contact_steps = 0;
  double worst = 0.0;
  for (int n = 0; n < steps; ++n) {
    multibody::State a = s;
    REQUIRE(integrator::StepWithContact(model, {0.0, 1.0, integrator::Gyroscopic::kImplicit}, {},
                                        {}, 1e-3, false, s, ws_dense, cws_dense)
                .ok());
    REQUIRE(integrator::StepWithContact(model, {0.0, 1.0, integrator::Gyroscopic::kImplicit}, {},
                                        {}, 1e-3, false, a, ws_art, cws_art)
                .ok());
    REQUIRE(cws_art.problem.clique_solver(0) != nullptr);
    REQUIRE(cws_dense.problem.clique_solver(0) == nullptr);
    contact_steps += cws_dense.problem.num_constraints() > 0;
    same_iterations += cws_art.stats.iterations == cws_dense.stats.iterations;
    worst = std::max(worst, (a.v - s.v).norm() / s.v.norm());
  }
  INFO("worst relative velocity difference " << worst << ", same iterations in "
                                             << same_iterations << " of " << steps);
  CHECK(contact_steps == steps);
  CHECK(worst < 1e-10);
  CHECK(same_iterations >= steps - 5);
  CHECK(s.v.norm() > 0.1);  // still moving: the steps were not trivial
}

}  // namespace
}  // namespace csim::contact
