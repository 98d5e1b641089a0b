// The articulated-body solve against an independent one: the dense Cholesky of M + diag(d)
// with M from the composite rigid-body algorithm (and the recursion's products with M and
// diag(M) against that M, and the bodies' inverse operational-space inertias against
// J_b (M + diag(d))^-1 J_b^T), on random forests that mix every joint
// type (fixed and prescribed joints among them), on subsets of their trees, and on a
// 100-link rope, whose mass matrix is dense and ill-conditioned.

#include <catch2/catch.hpp>

#include <random>

#include "engine/multibody/articulated_body.h"
#include "engine/multibody/crba.h"
#include "engine/multibody/jacobians.h"
#include "engine/multibody/kinematics.h"
#include "tests/support/allocation_counter.h"
#include "tests/support/test_models.h"

namespace csim::multibody {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// The root (child of the world) of each body. RandomTree does not number a tree's
// velocities contiguously, so the tree topology of the loader's models does not apply.
std::vector<int> Roots(const Model& model) {
  std::vector<int> root(model.num_bodies());
  for (int b = 0; b < model.num_bodies(); ++b)
    root[b] = model.parent[b] < 0 ? b : root[model.parent[b]];
  return root;
}

// Solves with the bodies whose root is chosen and checks against the dense Cholesky of
// M + diag(d) restricted to their velocities (M couples no two trees); the other entries
// of x must be left alone.
void CheckAgainstDense(const Model& model, const VectorXd& q, const VectorXd& v, const VectorXd& d,
                       std::mt19937& rng, const std::vector<bool>& root_chosen, double tolerance) {
  const std::vector<int> root = Roots(model);
  std::vector<bool> in_set(model.num_bodies());
  std::vector<int> index;  // the chosen velocities
  for (int b = 0; b < model.num_bodies(); ++b) {
    in_set[b] = root_chosen[root[b]];
    const Joint& joint = model.joints[b];
    if (in_set[b] && joint.v_start >= 0)
      for (int k = 0; k < joint.nv; ++k) index.push_back(joint.v_start + k);
  }
  Workspace ws = MakeWorkspace(model);
  CalcKinematics(model, 0.7, q, v, ws);
  CalcMassMatrix(model, ws);
  const MatrixXd A = ws.M.ToDense() + MatrixXd(d.asDiagonal());
  const int n = static_cast<int>(index.size());
  MatrixXd A_chosen(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) A_chosen(i, j) = A(index[i], index[j]);
  const Eigen::LLT<MatrixXd> llt(A_chosen);
  ArticulatedBodySolver solver(model, in_set);
  REQUIRE(solver.Factor(model, ws, d));
  VectorXd diagonal = VectorXd::Constant(model.nv, 7.0), diagonal_expected = diagonal;
  for (int i : index) diagonal_expected[i] = A(i, i) - d[i];
  solver.MassMatrixDiagonal(model, ws, &diagonal);
  CHECK((diagonal - diagonal_expected).norm() <= 1e-13 * diagonal_expected.norm());
  // Every body's inverse operational-space inertia against J_b A^-1 J_b^T, with J_b its
  // body Jacobian ([w; v of its origin] in its own axes) on the chosen velocities; bodies
  // outside the set are left alone.
  std::vector<math::Matrix6> omega(model.num_bodies(), math::Matrix6::Constant(7.0));
  std::vector<MatrixXd> J_bodies(model.num_bodies());
  const std::size_t before_omega = testing::AllocationCount();
  solver.InverseOperationalInertias(model, ws, &omega);
  CHECK(testing::AllocationCount() == before_omega);
  for (int b = 0; b < model.num_bodies(); ++b) {
    if (!in_set[b]) {
      CHECK(omega[b] == math::Matrix6::Constant(7.0));
      continue;
    }
    Eigen::Matrix<double, 6, Eigen::Dynamic> J_frame(6, model.nv);
    CalcFrameJacobian(model, ws, b, ws.X_WB[b].p, J_frame);
    MatrixXd J_body(6, n);
    const Eigen::Matrix3d R_BW = ws.X_WB[b].R.transpose();
    for (int i = 0; i < n; ++i) {
      J_body.block<3, 1>(0, i) = R_BW * J_frame.block<3, 1>(0, index[i]);
      J_body.block<3, 1>(3, i) = R_BW * J_frame.block<3, 1>(3, index[i]);
    }
    const MatrixXd expected = J_body * llt.solve(MatrixXd(J_body.transpose()));
    INFO("body " << b << "\nomega\n" << omega[b] << "\nexpected\n" << expected);
    CHECK((omega[b] - expected).norm() <= tolerance * expected.norm());
    J_bodies[b] = J_body;
  }
  // Every body's velocity J_b x, and the generalized force sum_b J_b^T F_b, by the
  // recursions against the body Jacobians formed from CalcFrameJacobian; entries outside
  // the set (bodies, velocities) are left alone.
  std::normal_distribution<double> unit;
  VectorXd x(model.nv);
  for (int i = 0; i < model.nv; ++i) x[i] = unit(rng);
  VectorXd x_chosen(n);
  for (int i = 0; i < n; ++i) x_chosen[i] = x[index[i]];
  std::vector<math::Vector6> V(model.num_bodies(), math::Vector6::Constant(7.0)), F = V;
  VectorXd generalized = VectorXd::Constant(model.nv, 0.5), generalized_expected(n);
  generalized_expected.setConstant(0.5);
  for (int b = 0; b < model.num_bodies(); ++b) {
    if (!in_set[b]) continue;
    for (int r = 0; r < 6; ++r) F[b][r] = unit(rng);
    generalized_expected += J_bodies[b].transpose() * F[b];
  }
  const std::size_t before_maps = testing::AllocationCount();
  solver.BodyVelocities(model, ws, x.data(), &V);
  solver.AddBodyForces(model, ws, &F, generalized.data());
  CHECK(testing::AllocationCount() == before_maps);
  for (int b = 0; b < model.num_bodies(); ++b) {
    if (!in_set[b]) {
      CHECK(V[b] == math::Vector6::Constant(7.0));
      continue;
    }
    const math::Vector6 expected = J_bodies[b] * x_chosen;
    INFO("body " << b << " V " << V[b].transpose() << " expected " << expected.transpose());
    CHECK((V[b] - expected).norm() <= 1e-13 * (1.0 + expected.norm()));
  }
  std::vector<int> chosen_at(model.nv, -1);
  for (int i = 0; i < n; ++i) chosen_at[index[i]] = i;
  for (int i = 0; i < model.nv; ++i) {
    if (chosen_at[i] >= 0) {
      const double expected = generalized_expected[chosen_at[i]];
      CHECK(std::abs(generalized[i] - expected) <= 1e-12 * (1.0 + std::abs(expected)));
    } else {
      CHECK(generalized[i] == 0.5);
    }
  }
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 3; ++trial) {
    VectorXd b(model.nv);
    for (int i = 0; i < model.nv; ++i) b[i] = normal(rng);
    VectorXd b_chosen(n);
    for (int i = 0; i < n; ++i) b_chosen[i] = b[index[i]];
    const VectorXd x_chosen = llt.solve(b_chosen);
    VectorXd expected = b;
    for (int i = 0; i < n; ++i) expected[index[i]] = x_chosen[i];
    VectorXd x = b;
    const std::size_t before = testing::AllocationCount();
    solver.SolveInPlace(model, ws, &x);
    CHECK(testing::AllocationCount() == before);
    INFO("x " << x.transpose() << "\nexpected " << expected.transpose());
    CHECK((x - expected).norm() <= tolerance * expected.norm());
    // M b by the recursion against the formed M (d plays no part); other entries untouched.
    VectorXd product = VectorXd::Constant(model.nv, 7.0), product_expected = product;
    const VectorXd Mb = ws.M.ToDense() * b;
    for (int i : index) product_expected[i] = Mb[i];
    const std::size_t before_product = testing::AllocationCount();
    solver.MultiplyMassMatrix(model, ws, b, &product);
    CHECK(testing::AllocationCount() == before_product);
    CHECK((product - product_expected).norm() <= 1e-13 * product_expected.norm());
  }
}

TEST_CASE("articulated-body solve equals the dense Cholesky of M + diag(d)",
          "[multibody][aba]") {
  for (unsigned seed = 1; seed <= 8; ++seed) {
    const Model model = testing::RandomTree(14, seed);
    std::mt19937 rng(seed);
    const VectorXd q = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
    std::uniform_real_distribution<double> uniform(0.0, 2.0);
    VectorXd d(model.nv);
    for (int i = 0; i < model.nv; ++i) d[i] = seed % 2 ? uniform(rng) : 0.0;  // with and without
    INFO("seed " << seed << ", nv " << model.nv);
    CheckAgainstDense(model, q, v, d, rng, std::vector<bool>(model.num_bodies(), true), 1e-12);
    // Every other tree only.
    const std::vector<int> root = Roots(model);
    std::vector<bool> some(model.num_bodies(), false);
    int num_roots = 0;
    for (int b = 0; b < model.num_bodies(); ++b)
      if (root[b] == b) some[b] = num_roots++ % 2 == 0;
    REQUIRE(num_roots >= 2);
    CheckAgainstDense(model, q, v, d, rng, some, 1e-12);
  }
}

TEST_CASE("articulated-body solve with joint armature equals the dense Cholesky of the CRBA's M",
          "[multibody][aba][armature]") {
  // The CRBA puts the armatures on M's diagonal (dynamics_test.cc checks that against the
  // model without them); the recursions must solve, multiply and take the diagonal with
  // that same M.
  for (unsigned seed = 1; seed <= 4; ++seed) {
    Model model = testing::RandomTree(14, seed);
    std::mt19937 rng(seed);
    REQUIRE(testing::AddRandomArmature(&model, rng).maxCoeff() > 0.0);
    const VectorXd q = testing::RandomQ(model, rng), v = testing::RandomV(model, rng);
    std::uniform_real_distribution<double> uniform(0.0, 2.0);
    VectorXd d(model.nv);
    for (int i = 0; i < model.nv; ++i) d[i] = seed % 2 ? uniform(rng) : 0.0;
    INFO("seed " << seed << ", nv " << model.nv);
    CheckAgainstDense(model, q, v, d, rng, std::vector<bool>(model.num_bodies(), true), 1e-12);
  }
}

TEST_CASE("articulated-body solve on a 100-link rope", "[multibody][aba]") {
  // Ball joints; M's condition number is about 5e10 here (the LLT's estimate), about 1.4e8
  // with d = 1e-4 on its diagonal, so the two solves cannot agree to round-off as on random
  // trees (condition about 1e2), only to within cond * eps.
  const Model model = testing::BallChain(100, 0.1, 0.1, 0.3);
  std::mt19937 rng(3);
  const VectorXd q = model.InitialQ(), v = testing::RandomV(model, rng);
  const std::vector<bool> all(model.num_bodies(), true);
  CheckAgainstDense(model, q, v, VectorXd::Zero(model.nv), rng, all, 1e-6);
  CheckAgainstDense(model, q, v, VectorXd::Constant(model.nv, 1e-4), rng, all, 1e-8);
}

TEST_CASE("articulated-body factor rejects a joint inertia that is not positive definite",
          "[multibody][aba]") {
  const Model model = testing::BallChain(3, 0.1, 0.1, 0.3);
  Workspace ws = MakeWorkspace(model);
  CalcKinematics(model, 0.0, model.InitialQ(), model.InitialV(), ws);
  ArticulatedBodySolver solver(model, std::vector<bool>(model.num_bodies(), true));
  CHECK(solver.Factor(model, ws, VectorXd::Zero(model.nv)));
  CHECK_FALSE(solver.Factor(model, ws, VectorXd::Constant(model.nv, -1e3)));
}

}  // namespace
}  // namespace csim::multibody
