// NewtonSystem: H = A + J^T G J over participating cliques, dense and sparse paths, against
// a dense reference assembled from the full matrices.

#include "engine/solver/newton_system.h"

#include <catch2/catch.hpp>

#include <initializer_list>
#include <random>

#include "engine/solver/islands.h"
#include "engine/solver/sap_friction_cone_constraint.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

MatrixXd RandomSpd(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  MatrixXd B(n, n);
  for (int i = 0; i < n * n; ++i) B.data()[i] = u(rng);
  return B * B.transpose() + n * MatrixXd::Identity(n, n);
}

MatrixXd RandomMatrix(int r, int c, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  MatrixXd B(r, c);
  for (int i = 0; i < r * c; ++i) B.data()[i] = u(rng);
  return B;
}

// Clears `problem` and gives it one clique of random SPD A per size (returned in A), v* = 0.
void RandomCliques(const std::vector<int>& sizes, std::mt19937& rng, ContactProblem* problem,
                   std::vector<MatrixXd>* A) {
  problem->Clear(0.01);
  int n = 0;
  for (int m : sizes) A->push_back(RandomSpd(m, rng)), problem->AddClique(A->back()), n += m;
  problem->SetFreeMotionVelocity(VectorXd::Zero(n));
}

// Random PSD 3 x 3 G blocks, one per constraint, laid out as NewtonSystem takes them.
void RandomGBlocks(const ContactProblem& problem, std::mt19937& rng, std::vector<double>* G_data,
                   std::vector<int>* G_offset) {
  for (int k = 0; k < problem.num_constraints(); ++k) {
    G_offset->push_back(static_cast<int>(G_data->size()));
    const MatrixXd B = RandomMatrix(3, 3, rng);
    const MatrixXd G = B * B.transpose();
    G_data->insert(G_data->end(), G.data(), G.data() + 9);
  }
}

// The dense reference H = A + sum_k J_k^T G_k J_k over the n reduced velocities, clique c
// at offset[c] (-1: not participating), formed from the full Jacobian blocks.
MatrixXd DenseReference(const ContactProblem& problem, const std::vector<MatrixXd>& A,
                        const std::vector<int>& offset, int n, const std::vector<double>& G_data,
                        const std::vector<int>& G_offset) {
  MatrixXd H = MatrixXd::Zero(n, n);
  for (int c = 0; c < problem.num_cliques(); ++c)
    if (offset[c] >= 0) H.block(offset[c], offset[c], A[c].rows(), A[c].cols()) = A[c];
  for (int k = 0; k < problem.num_constraints(); ++k) {
    MatrixXd Jk = MatrixXd::Zero(3, n);
    for (int b = 0; b < problem.entry(k).num_cliques; ++b) {
      const int c = problem.entry(k).clique[b];
      Jk.middleCols(offset[c], problem.clique_size(c)) = problem.DenseJacobian(k, b);
    }
    H += Jk.transpose() * Eigen::Map<const MatrixXd>(&G_data[G_offset[k]], 3, 3) * Jk;
  }
  return H;
}

// Random G blocks and right-hand side b; for each dense threshold, NewtonSystem (dense
// exactly when threshold > 0; over `islands` when given) must solve H x = b as the LLT of
// DenseReference does.
void CheckSolvesDenseReference(const ContactProblem& problem, const std::vector<MatrixXd>& A,
                               const std::vector<int>& offset, int n,
                               std::initializer_list<int> thresholds, std::mt19937& rng,
                               const Islands* islands = nullptr) {
  std::vector<double> G_data;
  std::vector<int> G_offset;
  RandomGBlocks(problem, rng, &G_data, &G_offset);
  const MatrixXd H = DenseReference(problem, A, offset, n, G_data, G_offset);
  const VectorXd b = RandomMatrix(n, 1, rng);
  const VectorXd x_ref = H.llt().solve(b);
  for (int threshold : thresholds) {
    INFO("dense threshold " << threshold);
    NewtonSystem system;
    system.Setup(problem, offset, n, threshold, islands);
    REQUIRE(system.dense() == (threshold > 0));
    system.Assemble(G_data.data(), G_offset);
    REQUIRE(system.Factor());
    VectorXd x = b;
    system.Solve(x);
    CHECK((x - x_ref).norm() <= 1e-12 * x_ref.norm());
  }
}

TEST_CASE("Newton system solves H x = b on the participating cliques", "[solver]") {
  std::mt19937 rng(21);
  // Cliques of sizes 2, 3, 1, 4; clique 2 has no constraint.
  const std::vector<int> sizes = {2, 3, 1, 4};
  ContactProblem problem;
  std::vector<MatrixXd> A;
  RandomCliques(sizes, rng, &problem, &A);
  SapFrictionConeParameters params;
  params.near_rigid_threshold = 1.0;
  params.stiction_sigma = 1.0e-3;
  params.stiffness = 1e3;
  const std::pair<int, int> pairs[] = {{0, -1}, {0, 1}, {1, 3}, {3, -1}, {0, 3}};
  for (auto [a, b] : pairs) {
    const MatrixXd Ja = RandomMatrix(3, sizes[a], rng);
    if (b < 0) {
      problem.AddConstraint(a, Ja, SapFrictionConeConstraint(params));
    } else {
      problem.AddConstraint(a, Ja, b, RandomMatrix(3, sizes[b], rng),
                            SapFrictionConeConstraint(params));
    }
  }
  // Reduced layout: cliques 0, 1, 3 -> offsets 0, 2, 5; size 9.
  CheckSolvesDenseReference(problem, A, {0, 2, -1, 5}, 9, {100, 0}, rng);  // dense, sparse
}

TEST_CASE("Newton system: constraints on a few velocities of big cliques equal the reference",
          "[solver]") {
  // Articulated trees: cliques of 12 and 10 velocities whose constraints act on a few of
  // them (a joint limit on one, a contact on the path of its body to the root). The sparse
  // path then adds J_a^T G J_b on those columns only (NewtonSystem::support_), and must
  // give the H of the dense reference; a constraint on most columns takes the dense
  // products. Both orders of every clique pair occur, so both storage orientations of an
  // off-diagonal block (BlockCholesky::Slot::transposed) are exercised.
  std::mt19937 rng(23);
  const std::vector<int> sizes = {12, 10, 12};
  ContactProblem problem;
  std::vector<MatrixXd> A;
  RandomCliques(sizes, rng, &problem, &A);
  SapFrictionConeParameters params;
  params.near_rigid_threshold = 1.0;
  params.stiction_sigma = 1.0e-3;
  params.stiffness = 1e3;
  // A Jacobian block of `rows` x m that is zero but on `columns`.
  const auto on = [&](int rows, int m, std::vector<int> columns) {
    MatrixXd J = MatrixXd::Zero(rows, m);
    for (int c : columns) J.col(c) = RandomMatrix(rows, 1, rng);
    return J;
  };
  struct Spec {
    int a, b;
    std::vector<int> cols_a, cols_b;
  };
  const std::vector<int> most = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const Spec specs[] = {{0, -1, {4}, {}},          {1, -1, {0, 1, 2}, {}},
                        {0, 1, {0, 1, 2, 7}, {5, 6}}, {1, 0, {3}, {0, 11}},
                        {2, 0, {1, 2}, {3, 4, 5}},  {0, 2, most, {2}},
                        {2, 1, {11}, most}};
  for (const Spec& sp : specs) {
    const MatrixXd Ja = on(3, sizes[sp.a], sp.cols_a);
    if (sp.b < 0) {
      problem.AddConstraint(sp.a, Ja, SapFrictionConeConstraint(params));
    } else {
      problem.AddConstraint(sp.a, Ja, sp.b, on(3, sizes[sp.b], sp.cols_b),
                            SapFrictionConeConstraint(params));
    }
  }
  CheckSolvesDenseReference(problem, A, {0, 12, 22}, 34, {0}, rng);  // the sparse path
}

// A random rotation (orthonormalised random matrix, right-handed).
Eigen::Matrix3d RandomRotation(std::mt19937& rng) {
  Eigen::Matrix3d R = Eigen::HouseholderQR<Eigen::Matrix3d>(RandomMatrix(3, 3, rng)).householderQ();
  if (R.determinant() < 0) R.col(0) = -R.col(0);
  return R;
}

TEST_CASE("Newton system from factored point-contact Jacobians equals the dense reference",
          "[solver]") {
  // Four rigid-body cliques; contacts on one body (ground) and between two, in both orders,
  // so that some cross blocks are stored transposed; J^T G J from the factored form
  // (PointContactJacobian) must equal the dense products of the blocks it wrote.
  std::mt19937 rng(5);
  ContactProblem problem;
  problem.Clear(0.01);
  std::vector<MatrixXd> A;
  for (int c = 0; c < 4; ++c) A.push_back(RandomSpd(6, rng)), problem.AddClique(A.back());
  problem.SetFreeMotionVelocity(VectorXd::Zero(24));
  SapFrictionConeParameters params;
  params.near_rigid_threshold = 1.0;
  params.stiction_sigma = 1.0e-3;
  params.stiffness = 1e3;
  const std::pair<int, int> pairs[] = {{0, -1}, {0, 1}, {2, 1}, {3, 0}, {3, -1}, {1, 3}, {2, -1}};
  for (auto [a, b] : pairs) {
    PointContactJacobian f;
    f.R_WC = RandomRotation(rng);
    f.r_W = {RandomMatrix(3, 1, rng), RandomMatrix(3, 1, rng)};
    f.sign = {b < 0 ? 1.0 : -1.0, 1.0};
    problem.AddPointContact(a, b, f, SapFrictionConeConstraint(params));
  }
  const std::vector<int> offset = {0, 6, 12, 18};
  std::vector<double> G_data;
  std::vector<int> G_offset;
  for (int k = 0; k < problem.num_constraints(); ++k) {
    G_offset.push_back(static_cast<int>(G_data.size()));
    const MatrixXd B = RandomMatrix(3, 3, rng);
    MatrixXd G = B * B.transpose();
    // Every other one as in stiction, diag(g_t, g_t, g_n): WorldFrameHessian's short cut.
    if (k % 2 == 0) G = Eigen::Vector3d(2.0 + k, 2.0 + k, 0.5).asDiagonal();
    G_data.insert(G_data.end(), G.data(), G.data() + 9);
  }
  MatrixXd H = MatrixXd::Zero(24, 24);
  for (int c = 0; c < 4; ++c) H.block(offset[c], offset[c], 6, 6) = A[c];
  for (int k = 0; k < problem.num_constraints(); ++k) {
    REQUIRE(problem.entry(k).point_contact >= 0);
    MatrixXd Jk = MatrixXd::Zero(3, 24);
    for (int b = 0; b < problem.entry(k).num_cliques; ++b) {
      const int c = problem.entry(k).clique[b];
      const PointContactJacobian& f = problem.point_contact(k);
      // The dense block is sign R^T [-[r]x I]: check it against w x r directly.
      const Eigen::Vector3d w = RandomMatrix(3, 1, rng), v = RandomMatrix(3, 1, rng);
      Eigen::Matrix<double, 6, 1> V;
      V << w, v;
      const Eigen::Vector3d expected = f.sign[b] * f.R_WC.transpose() * (v + w.cross(f.r_W[b]));
      CHECK((problem.DenseJacobian(k, b) * V - expected).norm() <= 1e-14 * expected.norm());
      Jk.middleCols(offset[c], 6) = problem.DenseJacobian(k, b);
    }
    H += Jk.transpose() * Eigen::Map<const MatrixXd>(&G_data[G_offset[k]], 3, 3) * Jk;
  }
  // The block path (threshold 0) uses the factored form; the dense path (threshold 24)
  // forms the point contacts' blocks (the problem stores none).
  for (int threshold : {0, 24}) {
    NewtonSystem system;
    system.Setup(problem, offset, 24, threshold);
    REQUIRE(system.dense() == (threshold > 0));
    system.Assemble(G_data.data(), G_offset);
    REQUIRE(system.Factor());
    // H^{-1} (H e_i) = e_i for every unit vector: the factor is that of H, entry by entry.
    for (int i = 0; i < 24; ++i) {
      VectorXd x = H.col(i);
      system.Solve(x);
      CHECK((x - VectorXd::Unit(24, i)).norm() <= 1e-10);
    }
  }
}

}  // namespace
}  // namespace csim::solver

namespace csim::solver {
namespace {

// A CliqueSolver that forms H_c = A_c + sum B_b^T K B_b + sum g e_j e_j^T densely from the
// "bodies" B_b it was given (random 6 x m maps) and counts its calls.
class DenseCliqueSolver final : public CliqueSolver {
 public:
  DenseCliqueSolver(MatrixXd A, std::vector<MatrixXd> B) : A_(std::move(A)), B_(std::move(B)) {}
  void ClearTerms() override { H_ = A_, ++clears; }
  void AddBodyTerm(int body, const Eigen::Matrix<double, 6, 6>& K) override {
    H_ += B_[body].transpose() * K * B_[body], ++body_terms;
  }
  void AddVelocityTerm(int j, double g) override { H_(j, j) += g, ++velocity_terms; }
  bool Factor() override {
    llt_.compute(H_);
    ++factors;
    return llt_.info() == Eigen::Success;
  }
  void Solve(double* x) override {
    Eigen::Map<VectorXd> v(x, A_.rows());
    v = llt_.solve(VectorXd(v));
    ++solves;
  }
  void MultiplyA(const double* x, double* out) override {
    Eigen::Map<VectorXd>(out, A_.rows()) = A_ * Eigen::Map<const VectorXd>(x, A_.rows());
  }
  void FormA(double* out) override { Eigen::Map<MatrixXd>(out, A_.rows(), A_.cols()) = A_; }
  void CalcBodyVelocities(const double* x) override {
    V_.resize(B_.size());
    for (std::size_t b = 0; b < B_.size(); ++b)
      V_[b] = B_[b] * Eigen::Map<const VectorXd>(x, A_.rows());
  }
  const Eigen::Matrix<double, 6, 1>& body_velocity(int body) const override { return V_[body]; }
  void ClearBodyForces() override {
    F_.assign(B_.size(), Eigen::Matrix<double, 6, 1>::Zero());
  }
  void AddBodyForce(int body, const Eigen::Matrix<double, 6, 1>& F) override { F_[body] += F; }
  void ApplyBodyForces(double* out) override {
    for (std::size_t b = 0; b < B_.size(); ++b)
      Eigen::Map<VectorXd>(out, A_.rows()) += B_[b].transpose() * F_[b];
  }
  void BodyJacobianRows(int body, const Eigen::Matrix<double, 3, 6>& W, double* J) override {
    Eigen::Map<MatrixXd>(J, 3, A_.rows()) = W * B_[body];
  }
  int clears = 0, body_terms = 0, velocity_terms = 0, factors = 0, solves = 0;

 private:
  MatrixXd A_, H_;
  std::vector<MatrixXd> B_;
  Eigen::LLT<MatrixXd> llt_;
  std::vector<Eigen::Matrix<double, 6, 1>> V_, F_;
};

// Clique 0 (7 velocities) has a CliqueSolver and, on it alone, three contacts with body
// Jacobians J = W B_b and one on a single velocity (J = s e_j^T); cliques 1 and 2 share a
// contact (another island). With `generic_extra`, clique 0 also carries a contact with a
// plain dense Jacobian, which the CliqueSolver cannot take: the island must then use the
// block-sparse path. Either way H x = b must be the dense reference's solution.
void CheckCliqueSolverIsland(bool generic_extra) {
  std::mt19937 rng(5);
  const std::vector<int> sizes = {7, 6, 5};
  ContactProblem problem;
  std::vector<MatrixXd> A;
  RandomCliques(sizes, rng, &problem, &A);
  const std::vector<MatrixXd> B = {RandomMatrix(6, 7, rng), RandomMatrix(6, 7, rng)};
  DenseCliqueSolver clique_solver(A[0], B);
  problem.SetCliqueSolver(0, &clique_solver);
  SapFrictionConeParameters params;
  params.near_rigid_threshold = 1.0;
  params.stiction_sigma = 1.0e-3;
  params.stiffness = 1e3;
  for (int body : {0, 1}) {
    const Eigen::Matrix<double, 3, 6> W = RandomMatrix(3, 6, rng);
    problem.AddConstraint(0, MatrixXd(W * B[body]), SapFrictionConeConstraint(params));
    problem.SetBodyJacobian(problem.num_constraints() - 1, body, W);
  }
  // A body contact: W B_b alone, no stored block (ContactProblem::AddBodyContact). The
  // block-sparse and dense paths form it through the CliqueSolver when they need it.
  const Eigen::Matrix<double, 3, 6> W_body = RandomMatrix(3, 6, rng);
  problem.AddBodyContact(0, 1, W_body, SapFrictionConeConstraint(params), 1.0);
  const int body_contact = problem.num_constraints() - 1;
  CHECK_FALSE(problem.has_dense_jacobian(body_contact));
  CHECK(problem.entry(body_contact).delassus == 1.0);
  CHECK((problem.DenseJacobian(body_contact, 0) - W_body * B[1]).norm() == 0.0);
  MatrixXd J_velocity = MatrixXd::Zero(3, 7);
  J_velocity.col(4) = RandomMatrix(3, 1, rng);
  problem.AddConstraint(0, J_velocity, SapFrictionConeConstraint(params));
  if (generic_extra) problem.AddConstraint(0, RandomMatrix(3, 7, rng), SapFrictionConeConstraint(params));
  problem.AddConstraint(1, RandomMatrix(3, 6, rng), 2, RandomMatrix(3, 5, rng),
                        SapFrictionConeConstraint(params));
  const std::vector<int> offset = {0, 7, 13};
  const int n = 18;
  Islands islands;
  FindIslands(problem, offset, &islands);
  REQUIRE(islands.num_islands == 2);
  // The block-sparse path, then the dense one (threshold 100), which forms the body
  // contact's block whether or not the island could use the CliqueSolver.
  CheckSolvesDenseReference(problem, A, offset, n, {0}, rng, &islands);
  const int factors_sparse = clique_solver.factors;
  CheckSolvesDenseReference(problem, A, offset, n, {100}, rng, &islands);
  CHECK(clique_solver.factors == factors_sparse);
  if (generic_extra) {
    CHECK(clique_solver.factors == 0);
  } else {
    CHECK(clique_solver.clears == 1);
    CHECK(clique_solver.body_terms == 3);
    CHECK(clique_solver.velocity_terms == 1);
    CHECK(clique_solver.factors == 1);
    CHECK(clique_solver.solves == 1);
  }
}

TEST_CASE("Newton system hands an island to its clique's CliqueSolver when every term fits",
          "[solver][clique-solver]") {
  SECTION("body and velocity terms only: the CliqueSolver") { CheckCliqueSolverIsland(false); }
  SECTION("a generic Jacobian too: the block-sparse path") { CheckCliqueSolverIsland(true); }
}

}  // namespace
}  // namespace csim::solver
