#include "engine/solver/contact_problem.h"

#include <algorithm>

#include "engine/common/check.h"
#include "engine/solver/delassus_estimate.h"

namespace csim::solver {
namespace {

// Grows `buffer` to at least `size` entries, doubling: the problem is rebuilt every step by
// appending block after block, and resizing to the exact size each time went through
// vector's general fill-insert path every time.
void GrowTo(std::vector<double>* buffer, size_t size) {
  if (buffer->size() < size) buffer->resize(std::max(size, 2 * buffer->size()));
}

}  // namespace

void ContactProblem::Clear(double dt) {
  CSIM_CHECK(dt > 0.0);
  dt_ = dt;
  num_velocities_ = 0;
  num_rows_ = 0;
  max_rows_ = 0;
  clique_size_.clear();
  clique_offset_.clear();
  A_offset_.clear();
  A_size_ = 0;
  jacobian_size_ = 0;
  entries_.clear();
  point_contacts_.clear();
  body_jacobians_.clear();
  clique_solver_.clear();
  for (auto& pool : pools_) pool->Clear();
}

int ContactProblem::AddClique(const Eigen::Ref<const Eigen::MatrixXd>& A) {
  CSIM_CHECK(dt_ > 0.0);  // Clear(dt) first
  CSIM_CHECK(entries_.empty());  // cliques before constraints
  const int m = static_cast<int>(A.rows());
  CSIM_CHECK(m >= 1 && A.cols() == m);
  clique_size_.push_back(m);
  clique_offset_.push_back(num_velocities_);
  clique_solver_.push_back(nullptr);
  A_offset_.push_back(static_cast<int>(A_size_));
  A_size_ += static_cast<size_t>(m) * m;
  GrowTo(&A_data_, A_size_);
  if (m == 6) {  // a free body: a fixed-size copy
    Eigen::Map<Eigen::Matrix<double, 6, 6>>(A_data_.data() + A_offset_.back()) = A.topLeftCorner<6, 6>();
  } else {
    Eigen::Map<Eigen::MatrixXd>(A_data_.data() + A_offset_.back(), m, m) = A;
  }
  num_velocities_ += m;
  GrowTo(&v_star_, num_velocities_);
  std::fill_n(v_star_.data() + num_velocities_ - m, m, 0.0);
  GrowTo(&inverse_diagonal_A_, num_velocities_);
  for (int i = 0; i < m; ++i) {
    // SPD: a positive diagonal (checked before the reciprocal, where 0 would become +inf).
    CSIM_CHECK(A(i, i) > 0.0);
    inverse_diagonal_A_[num_velocities_ - m + i] = 1.0 / A(i, i);
  }
  return num_cliques() - 1;
}

int ContactProblem::AddMatrixFreeClique(int size, const double* A_diagonal, CliqueSolver* solver) {
  CSIM_CHECK(dt_ > 0.0);  // Clear(dt) first
  CSIM_CHECK(entries_.empty());  // cliques before constraints
  CSIM_CHECK(size >= 1 && solver != nullptr);
  clique_size_.push_back(size);
  clique_offset_.push_back(num_velocities_);
  clique_solver_.push_back(solver);
  A_offset_.push_back(-1);
  num_velocities_ += size;
  GrowTo(&v_star_, num_velocities_);
  std::fill_n(v_star_.data() + num_velocities_ - size, size, 0.0);
  GrowTo(&inverse_diagonal_A_, num_velocities_);
  for (int i = 0; i < size; ++i) {
    CSIM_CHECK(A_diagonal[i] > 0.0);
    inverse_diagonal_A_[num_velocities_ - size + i] = 1.0 / A_diagonal[i];
  }
  return num_cliques() - 1;
}

Eigen::MatrixXd ContactProblem::DenseA(int c) const {
  if (has_A(c)) return A(c);
  Eigen::MatrixXd A_c(clique_size_[c], clique_size_[c]);
  clique_solver_[c]->FormA(A_c.data());
  return A_c;
}

void ContactProblem::SetFreeMotionVelocity(const Eigen::Ref<const Eigen::VectorXd>& v_star) {
  CSIM_CHECK(v_star.size() == num_velocities_);
  Eigen::Map<Eigen::VectorXd>(v_star_.data(), num_velocities_) = v_star;
}

Eigen::Map<const Eigen::VectorXd> ContactProblem::v_star() const {
  return {v_star_.data(), num_velocities_};
}

Eigen::Map<Eigen::MatrixXd> ContactProblem::MutableJacobian(int k, int b) {
  const ConstraintEntry& e = entries_[k];
  return {jacobian_data_.data() + e.jacobian_offset[b], e.num_rows, clique_size_[e.clique[b]]};
}

void ContactProblem::GrowJacobianData() { GrowTo(&jacobian_data_, jacobian_size_); }

int ContactProblem::AppendEntry(Constraint* c, const StictionPrediction* prediction, int c0,
                                int c1, bool dense_jacobian) {
  CSIM_CHECK(c0 >= 0 && c0 < num_cliques());
  CSIM_CHECK(c1 == -1 || (c1 >= 0 && c1 < num_cliques() && c1 != c0));
  ConstraintEntry e;
  e.constraint = c;
  e.prediction = prediction;
  e.num_rows = c->num_rows();
  CSIM_CHECK(e.num_rows >= 1);
  e.row_offset = num_rows_;
  e.num_cliques = c1 < 0 ? 1 : 2;
  e.clique = {{c0, c1}};
  for (int b = 0; b < e.num_cliques && dense_jacobian; ++b) {
    const size_t size = static_cast<size_t>(e.num_rows) * clique_size_[e.clique[b]];
    e.jacobian_offset[b] = static_cast<int>(jacobian_size_);
    jacobian_size_ += size;
    GrowTo(&jacobian_data_, jacobian_size_);
    std::fill_n(jacobian_data_.data() + e.jacobian_offset[b], size, 0.0);
  }
  num_rows_ += e.num_rows;
  max_rows_ = std::max(max_rows_, e.num_rows);
  entries_.push_back(e);
  return num_constraints() - 1;
}

void ContactProblem::SetBodyJacobian(int k, int body, const Eigen::Matrix<double, 3, 6>& W) {
  ConstraintEntry& e = entries_[k];
  CSIM_CHECK(e.num_rows == 3 && e.num_cliques == 1 && e.point_contact < 0);
  e.body_jacobian = static_cast<int>(body_jacobians_.size());
  body_jacobians_.push_back({body, W});
}

void ContactProblem::SetCliqueSolver(int c, CliqueSolver* solver) {
  CSIM_CHECK(c >= 0 && c < num_cliques());
  clique_solver_[c] = solver;
}

void ContactProblem::SetPointContactJacobian(int k, const PointContactJacobian& f) {
  ConstraintEntry& e = entries_[k];
  CSIM_CHECK(e.num_rows == 3);
  e.point_contact = static_cast<int>(point_contacts_.size());
  point_contacts_.push_back(f);
  for (int b = 0; b < e.num_cliques; ++b) {
    CSIM_CHECK(clique_size_[e.clique[b]] == 6);
    CSIM_CHECK(f.sign[b] == 1.0 || f.sign[b] == -1.0);
  }
}

Eigen::Matrix<double, 3, 6> ContactProblem::PointContactBlock(int k, int b) const {
  const ConstraintEntry& e = entries_[k];
  CSIM_CHECK(e.point_contact >= 0 && b >= 0 && b < e.num_cliques);
  const PointContactJacobian& f = point_contacts_[e.point_contact];
  // Row i of R^T [-[r]x I] is ((r x R_i)^T, R_i^T) with R_i column i of R, since
  // R_i . (w x r) = w . (r x R_i).
  Eigen::Matrix<double, 3, 6> J;
  for (int i = 0; i < 3; ++i) {
    const Eigen::Vector3d R_i = f.sign[b] * f.R_WC.col(i);
    J.block<1, 3>(i, 0) = f.r_W[b].cross(R_i).transpose();
    J.block<1, 3>(i, 3) = R_i.transpose();
  }
  return J;
}

void ContactProblem::FormBodyJacobianBlock(int k, double* J) const {
  const ConstraintEntry& e = entries_[k];
  CSIM_CHECK(e.body_jacobian >= 0 && clique_solver_[e.clique[0]] != nullptr);
  const BodyJacobian& f = body_jacobians_[e.body_jacobian];
  clique_solver_[e.clique[0]]->BodyJacobianRows(f.body, f.W, J);
}

Eigen::MatrixXd ContactProblem::DenseJacobian(int k, int b) const {
  const ConstraintEntry& e = entries_[k];
  if (e.point_contact >= 0) return PointContactBlock(k, b);
  if (!has_dense_jacobian(k)) {
    Eigen::MatrixXd J(e.num_rows, clique_size_[e.clique[0]]);
    FormBodyJacobianBlock(k, J.data());
    return J;
  }
  return jacobian(k, b);
}

void ContactProblem::FinishEntry(int k, double delassus) {
  ConstraintEntry& e = entries_[k];
  // The caller's estimate (the exact per-tree blocks of [P] for contacts on articulated
  // trees, contact_problem_builder.cc), else Drake's diagonal-of-A recipe
  // (docs/design/sap-problem.md §4).
  if (delassus > 0.0) {
    e.delassus = delassus;
  } else if (e.point_contact >= 0) {
    const double* const inverse_diagonal[2] = {inverse_diagonal_of_A(e.clique[0]),
                                               inverse_diagonal_of_A(e.clique[e.num_cliques - 1])};
    e.delassus = EstimatePointContactDelassus(e.num_cliques, inverse_diagonal,
                                              point_contacts_[e.point_contact].r_W.data());
  } else if (!has_A(e.clique[0]) || (e.num_cliques == 2 && !has_A(e.clique[1]))) {
    // The same recipe from the inverse diagonal that every clique keeps (a matrix-free
    // clique has no A block).
    const Eigen::Ref<const Eigen::MatrixXd> J0 = jacobian(k, 0);
    if (e.num_cliques == 1) {
      e.delassus = EstimateDelassusFromInverseDiagonal(J0, inverse_diagonal_of_A(e.clique[0]));
    } else {
      const Eigen::Ref<const Eigen::MatrixXd> J1 = jacobian(k, 1);
      e.delassus = EstimateDelassusFromInverseDiagonal(J0, inverse_diagonal_of_A(e.clique[0]),
                                                       &J1, inverse_diagonal_of_A(e.clique[1]));
    }
  } else if (e.num_cliques == 1) {
    e.delassus = EstimateDelassus(A(e.clique[0]), jacobian(k, 0));
  } else {
    e.delassus = EstimateDelassus(A(e.clique[0]), jacobian(k, 0), A(e.clique[1]), jacobian(k, 1));
  }
  CSIM_CHECK(e.delassus > 0.0);  // a constraint whose Jacobian is zero is a builder bug
  e.constraint->Prepare(dt_, e.delassus);
}

}  // namespace csim::solver
