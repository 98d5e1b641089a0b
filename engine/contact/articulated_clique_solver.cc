#include "engine/contact/articulated_clique_solver.h"

#include "engine/common/check.h"

namespace csim::contact {
namespace {

std::vector<bool> TreeBodies(const multibody::Model& model, const multibody::TreeTopology& topology,
                             int tree) {
  std::vector<bool> in_tree(model.num_bodies(), false);
  for (int b = 0; b < model.num_bodies(); ++b) in_tree[b] = topology.body_tree[b] == tree;
  return in_tree;
}

}  // namespace

ArticulatedCliqueSolver::ArticulatedCliqueSolver(const multibody::Model& model,
                                                 const multibody::TreeTopology& topology, int tree)
    : model_(&model),
      v_start_(topology.tree_v_start[tree]),
      nv_(topology.tree_nv[tree]),
      solver_(model, TreeBodies(model, topology, tree)),
      added_inertia_(model.num_bodies(), math::Matrix6::Zero()),
      d_(Eigen::VectorXd::Zero(model.nv)),
      x_(Eigen::VectorXd::Zero(model.nv)),
      Mx_(Eigen::VectorXd::Zero(model.nv)),
      diagonal_(Eigen::VectorXd::Zero(model.nv)),
      e_(Eigen::VectorXd::Zero(topology.tree_nv[tree])),
      V_(model.num_bodies(), math::Vector6::Zero()),
      F_(model.num_bodies(), math::Vector6::Zero()),
      row_F_(model.num_bodies(), math::Vector6::Zero()) {
  for (int b = 0; b < model.num_bodies(); ++b)
    if (topology.body_tree[b] == tree) bodies_.push_back(b);
}

void ArticulatedCliqueSolver::Prepare(const multibody::Workspace* kinematics,
                                      const Eigen::VectorXd* diagonal_terms) {
  kinematics_ = kinematics;
  diagonal_terms_ = diagonal_terms;
}

void ArticulatedCliqueSolver::ClearTerms() {
  for (int b : bodies_) added_inertia_[b].setZero();
  if (diagonal_terms_ != nullptr) {
    d_.segment(v_start_, nv_) = diagonal_terms_->segment(v_start_, nv_);
  } else {
    d_.segment(v_start_, nv_).setZero();
  }
}

void ArticulatedCliqueSolver::AddBodyTerm(int body, const Eigen::Matrix<double, 6, 6>& K) {
  added_inertia_[body] += K;
}

void ArticulatedCliqueSolver::AddVelocityTerm(int j, double g) {
  CSIM_CHECK(j >= 0 && j < nv_);
  d_[v_start_ + j] += g;
}

bool ArticulatedCliqueSolver::Factor() {
  return solver_.Factor(*model_, *kinematics_, d_, &added_inertia_);
}

void ArticulatedCliqueSolver::Solve(double* x) {
  x_.segment(v_start_, nv_) = Eigen::Map<const Eigen::VectorXd>(x, nv_);
  solver_.SolveInPlace(*model_, *kinematics_, &x_);
  Eigen::Map<Eigen::VectorXd>(x, nv_) = x_.segment(v_start_, nv_);
}

void ArticulatedCliqueSolver::MultiplyA(const double* x, double* out) {
  // A_c = M + diag(A's diagonal terms) at the kinematics the factorization uses.
  x_.segment(v_start_, nv_) = Eigen::Map<const Eigen::VectorXd>(x, nv_);
  solver_.MultiplyMassMatrix(*model_, *kinematics_, x_, &Mx_);
  Eigen::Map<Eigen::VectorXd> out_c(out, nv_);
  out_c = Mx_.segment(v_start_, nv_);
  if (diagonal_terms_ != nullptr)
    out_c += diagonal_terms_->segment(v_start_, nv_).cwiseProduct(x_.segment(v_start_, nv_));
}

void ArticulatedCliqueSolver::FormA(double* out) {
  // Column j is A e_j: nv_ products of O(bodies) each, only for islands that cannot use
  // the recursions (contacts with another tree, self-contact), once per solve.
  e_.setZero(nv_);
  for (int j = 0; j < nv_; ++j) {
    e_[j] = 1.0;
    MultiplyA(e_.data(), out + static_cast<size_t>(j) * nv_);
    e_[j] = 0.0;
  }
}

void ArticulatedCliqueSolver::ADiagonal(double* out) const {
  solver_.MassMatrixDiagonal(*model_, *kinematics_, &diagonal_);
  Eigen::Map<Eigen::VectorXd> out_c(out, nv_);
  out_c = diagonal_.segment(v_start_, nv_);
  if (diagonal_terms_ != nullptr) out_c += diagonal_terms_->segment(v_start_, nv_);
}

void ArticulatedCliqueSolver::CalcBodyVelocities(const double* x) {
  // The recursion reads velocities in model order: the tree's are v_start_ .. + nv_.
  x_.segment(v_start_, nv_) = Eigen::Map<const Eigen::VectorXd>(x, nv_);
  solver_.BodyVelocities(*model_, *kinematics_, x_.data(), &V_);
}

void ArticulatedCliqueSolver::ClearBodyForces() {
  for (int b : bodies_) F_[b].setZero();
}

void ArticulatedCliqueSolver::ApplyBodyForces(double* out) {
  x_.segment(v_start_, nv_).setZero();
  solver_.AddBodyForces(*model_, *kinematics_, &F_, x_.data());
  Eigen::Map<Eigen::VectorXd>(out, nv_) += x_.segment(v_start_, nv_);
}

void ArticulatedCliqueSolver::BodyJacobianRows(int body, const Eigen::Matrix<double, 3, 6>& W,
                                               double* J) {
  // Row r of W B_body is (B_body^T W_r^T)^T: the generalized force of the spatial force
  // W_r^T on the body, one leaves-to-root pass per row.
  for (int r = 0; r < 3; ++r) {
    for (int b : bodies_) row_F_[b].setZero();
    row_F_[body] = W.row(r).transpose();
    x_.segment(v_start_, nv_).setZero();
    solver_.AddBodyForces(*model_, *kinematics_, &row_F_, x_.data());
    for (int j = 0; j < nv_; ++j) J[r + 3 * j] = x_[v_start_ + j];
  }
}

}  // namespace csim::contact
