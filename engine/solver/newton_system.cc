#include "engine/solver/newton_system.h"

#include <algorithm>

#include "engine/common/check.h"

namespace csim::solver {

using Map = Eigen::Map<Eigen::MatrixXd>;
using ConstMap = Eigen::Map<const Eigen::MatrixXd>;
using VecMap = Eigen::Map<Eigen::VectorXd>;

namespace {

// True when the n x n block G is exactly zero: a constraint out of contact (SAP's region
// III) adds nothing to H, and skipping it changes no bit of the sum. While a pile collapses
// about half of its contacts are separating in any one Newton iteration.
bool IsZeroBlock(const double* G, int n) {
  for (int r = 0; r < n * n; ++r)
    if (G[r] != 0.0) return false;
  return true;
}

}  // namespace

Eigen::Map<Eigen::MatrixXd> NewtonSystem::ScratchView(std::vector<double>* buffer, int rows,
                                                       int cols) {
  const size_t size = static_cast<size_t>(rows) * cols;
  if (buffer->size() < size) buffer->resize(size);
  return {buffer->data(), rows, cols};
}

void NewtonSystem::Setup(const ContactProblem& problem, const std::vector<int>& reduced_offset,
                         int num_reduced, int dense_threshold, const Islands* islands) {
  problem_ = &problem;
  reduced_offset_ = &reduced_offset;
  n_ = num_reduced;
  dense_ = n_ <= dense_threshold;
  if (islands == nullptr) SetupWholeIsland();
  islands_ = islands != nullptr ? islands : &whole_island_;
  if (dense_) {
    SetupDense();
  } else {
    SetupSparse();
  }
  FormUnstoredBlocks();
  ReserveScratch(&scratch_);
}

void NewtonSystem::FormUnstoredBlocks() {
  const ContactProblem& p = *problem_;
  const Islands& is = *islands_;
  formed_offset_.assign(p.num_constraints(), -1);
  formed_A_offset_.assign(p.num_cliques(), -1);
  size_t size = 0, A_size = 0;
  for (int pass = 0; pass < 2; ++pass) {  // sizes, then the blocks
    for (int i = 0; i < is.num_islands; ++i) {
      if (!dense_ && structured_[i]) continue;  // its CliqueSolver takes the W B_b terms
      for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
        const int c = is.cliques[q], m = p.clique_size(c);
        if (p.has_A(c)) continue;
        if (pass == 0) {
          formed_A_offset_[c] = static_cast<int>(A_size);
          A_size += static_cast<size_t>(m) * m;
        } else {
          p.clique_solver(c)->FormA(formed_A_.data() + formed_A_offset_[c]);
        }
      }
      for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
        const int k = is.constraints[q];
        if (p.has_dense_jacobian(k) || p.entry(k).body_jacobian < 0) continue;
        if (pass == 0) {
          formed_offset_[k] = static_cast<int>(size);
          size += static_cast<size_t>(p.entry(k).num_rows) * p.clique_size(p.entry(k).clique[0]);
        } else {
          p.FormBodyJacobianBlock(k, formed_J_.data() + formed_offset_[k]);
        }
      }
    }
    if (pass == 0 && formed_J_.size() < size) formed_J_.resize(size);
    if (pass == 0 && formed_A_.size() < A_size) formed_A_.resize(A_size);
  }
}

NewtonSystem::ConstMap NewtonSystem::ABlock(int c) const {
  if (formed_A_offset_[c] < 0) return problem_->A(c);
  const int m = problem_->clique_size(c);
  return {formed_A_.data() + formed_A_offset_[c], m, m};
}

NewtonSystem::ConstMap NewtonSystem::Jacobian(int k, int b) const {
  if (formed_offset_[k] < 0) return problem_->jacobian(k, b);
  const ConstraintEntry& e = problem_->entry(k);
  return {formed_J_.data() + formed_offset_[k], e.num_rows, problem_->clique_size(e.clique[0])};
}

void NewtonSystem::SetupWholeIsland() {
  const ContactProblem& p = *problem_;
  const std::vector<int>& off = *reduced_offset_;
  Islands& whole = whole_island_;
  whole.num_islands = 1;
  whole.island_of_clique.resize(p.num_cliques());
  whole.cliques.clear();
  whole.num_velocities.assign(1, 0);
  for (int c = 0; c < p.num_cliques(); ++c) {
    whole.island_of_clique[c] = off[c] >= 0 ? 0 : -1;
    if (off[c] >= 0) {
      whole.cliques.push_back(c);
      whole.num_velocities[0] += p.clique_size(c);
    }
  }
  whole.clique_start = {0, static_cast<int>(whole.cliques.size())};
  whole.constraints.resize(p.num_constraints());
  for (int k = 0; k < p.num_constraints(); ++k) whole.constraints[k] = k;
  whole.constraint_island.assign(p.num_constraints(), 0);
  whole.constraint_start = {0, p.num_constraints()};
}

int NewtonSystem::IslandSize(int i) const { return islands_->num_velocities[i]; }

void NewtonSystem::ReserveScratch(Scratch* scratch) const {
  const ContactProblem& p = *problem_;
  int max_clique = 0;
  for (int c = 0; c < p.num_cliques(); ++c) max_clique = std::max(max_clique, p.clique_size(c));
  const size_t gj = static_cast<size_t>(p.max_constraint_rows()) * max_clique;
  for (std::vector<double>& b : scratch->GJ)
    if (b.size() < gj) b.resize(gj);
  int max_island = 0;
  if (dense_)
    for (int i = 0; i < islands_->num_islands; ++i) max_island = std::max(max_island, IslandSize(i));
  if (scratch->x.size() < static_cast<size_t>(max_island)) scratch->x.resize(max_island);
}

void NewtonSystem::SetupDense() {
  const Islands& is = *islands_;
  local_offset_.assign(problem_->num_cliques(), -1);
  dense_offset_.resize(is.num_islands + 1);
  size_t size = 0;
  for (int i = 0; i < is.num_islands; ++i) {
    int m = 0;
    for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
      local_offset_[is.cliques[q]] = m;
      m += problem_->clique_size(is.cliques[q]);
    }
    dense_offset_[i] = static_cast<int>(size);
    size += static_cast<size_t>(m) * m;
  }
  dense_offset_[is.num_islands] = static_cast<int>(size);
  if (H_.size() < size) H_.resize(size);
}

void NewtonSystem::SetupSparse() {
  const ContactProblem& p = *problem_;
  const std::vector<int>& off = *reduced_offset_;
  node_of_clique_.assign(p.num_cliques(), -1);
  node_size_.clear();
  node_offset_.clear();
  node_island_.clear();
  for (int c = 0; c < p.num_cliques(); ++c) {
    if (off[c] < 0) continue;
    node_of_clique_[c] = static_cast<int>(node_size_.size());
    node_size_.push_back(p.clique_size(c));
    node_offset_.push_back(off[c]);
    node_island_.push_back(islands_->island_of_clique[c]);
  }
  edges_.clear();
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    if (e.num_cliques == 2 && islands_->constraint_island[k] >= 0)  // not deferred
      edges_.emplace_back(node_of_clique_[e.clique[0]], node_of_clique_[e.clique[1]]);
  }
  block_.Analyze(node_size_, node_offset_, edges_);
  block_.SetPartition(node_island_, islands_->num_islands);
  diagonal_slot_.resize(node_size_.size());
  for (int i = 0; i < static_cast<int>(node_size_.size()); ++i) diagonal_slot_[i] = block_.Find(i, i);
  FindSupports();
  FindStructuredIslands();
  slots_.resize(p.num_constraints());
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    if (islands_->constraint_island[k] < 0) continue;  // deferred: in no island's system
    const int a = node_of_clique_[e.clique[0]];
    slots_[k][0] = diagonal_slot_[a];
    if (e.num_cliques == 2) {
      const int b = node_of_clique_[e.clique[1]];
      slots_[k][1] = diagonal_slot_[b];
      slots_[k][2] = block_.Find(a, b);
    }
  }
}

void NewtonSystem::FindStructuredIslands() {
  const ContactProblem& p = *problem_;
  const Islands& is = *islands_;
  velocity_term_.assign(p.num_constraints(), -1);
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    const int support = support_start_[2 * k + 1] - support_start_[2 * k];
    if (e.num_cliques == 1 && e.point_contact < 0 && support == 1)
      velocity_term_[k] = support_[support_start_[2 * k]];
  }
  structured_.assign(is.num_islands, 0);
  for (int i = 0; i < is.num_islands; ++i) {
    if (is.clique_start[i + 1] - is.clique_start[i] != 1) continue;
    if (p.clique_solver(is.cliques[is.clique_start[i]]) == nullptr) continue;
    bool all = true;
    for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1] && all; ++q) {
      const int k = is.constraints[q];
      all = p.entry(k).body_jacobian >= 0 || velocity_term_[k] >= 0;
    }
    structured_[i] = all;
  }
}

void NewtonSystem::AssembleStructuredIsland(int i, const double* G_data,
                                            const std::vector<int>& G_offset) {
  const ContactProblem& p = *problem_;
  const Islands& is = *islands_;
  CliqueSolver& solver = *p.clique_solver(is.cliques[is.clique_start[i]]);
  solver.ClearTerms();
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    const double* G = G_data + G_offset[k];
    if (IsZeroBlock(G, e.num_rows)) continue;
    if (e.body_jacobian >= 0) {
      const BodyJacobian& f = p.body_jacobian(k);
      const Eigen::Map<const Eigen::Matrix3d> G3(G);
      const Eigen::Matrix<double, 3, 6> GW = G3 * f.W;
      solver.AddBodyTerm(f.body, f.W.transpose() * GW);
    } else {
      // s^T G s, s the one nonzero column of J (scalar loops: a dynamic-size product would
      // make a heap temporary).
      const int j = velocity_term_[k], n = e.num_rows;
      const double* s = p.jacobian_block(k, 0) + static_cast<size_t>(j) * n;
      double g = 0.0;
      for (int c = 0; c < n; ++c)
        for (int r = 0; r < n; ++r) g += s[r] * G[r + c * n] * s[c];
      solver.AddVelocityTerm(j, g);
    }
  }
}

void NewtonSystem::FindSupports() {
  const ContactProblem& p = *problem_;
  support_start_.assign(1, 0);
  support_.clear();
  use_support_.assign(p.num_constraints(), 0);
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    // A body contact (no stored block) is assembled through its CliqueSolver, or, in an
    // island that cannot use it, from its formed block by the dense products; contacts on
    // free bodies and small trees by their fixed-size kernels.
    const bool generic =
        p.has_dense_jacobian(k) && !IsFreeBodyContact(p, k) && !IsSmallThreeRow(p, k);
    long dense = 0, sparse = 0;  // multiplications of J_a^T G J_b over all (a, b) blocks
    for (int b = 0; b < 2; ++b) {
      if (generic && b < e.num_cliques) {
        const ConstMap J = p.jacobian(k, b);
        for (int col = 0; col < J.cols(); ++col)
          if ((J.col(col).array() != 0.0).any()) support_.push_back(col);
      }
      support_start_.push_back(static_cast<int>(support_.size()));
    }
    for (int a = 0; generic && a < e.num_cliques; ++a)
      for (int b = 0; b < e.num_cliques; ++b) {
        dense += static_cast<long>(p.clique_size(e.clique[a])) * p.clique_size(e.clique[b]);
        sparse += static_cast<long>(support_start_[2 * k + a + 1] - support_start_[2 * k + a]) *
                  (support_start_[2 * k + b + 1] - support_start_[2 * k + b]);
      }
    // AddSupported's scalar loops run a few times slower per multiplication than Eigen's
    // blocked products: worth it only on a small share of the blocks.
    use_support_[k] = generic && 4 * sparse <= dense;
  }
}

bool NewtonSystem::AddSupported(const ContactProblem& p, int k, const double* G_data,
                                Scratch* scratch) {
  if (!use_support_[k]) return false;
  const ConstraintEntry& e = p.entry(k);
  const int n = e.num_rows;
  const int* cols[2];
  int count[2] = {0, 0}, m[2] = {0, 0};
  for (int b = 0; b < e.num_cliques; ++b) {
    cols[b] = support_.data() + support_start_[2 * k + b];
    count[b] = support_start_[2 * k + b + 1] - support_start_[2 * k + b];
    m[b] = p.clique_size(e.clique[b]);
  }
  const ConstMap G(G_data, n, n);
  // GJ_b restricted to its support: n x count[b], column jj = G J_b(:, cols[b][jj]).
  double* GJ[2];
  for (int b = 0; b < e.num_cliques; ++b) {
    GJ[b] = ScratchView(&scratch->GJ[b], n, std::max(count[b], 1)).data();
    const ConstMap J = p.jacobian(k, b);
    for (int jj = 0; jj < count[b]; ++jj)
      Eigen::Map<Eigen::VectorXd>(GJ[b] + jj * n, n).noalias() = G * J.col(cols[b][jj]);
  }
  // Block (a, b) += J_a^T G J_b on the supports: entry (i, j) = J_a(:, i) . GJ_b(:, j).
  const auto add = [&](BlockCholesky::Slot slot, int a, int b) {
    double* target = block_.data() + slot.offset;
    const ConstMap Ja = p.jacobian(k, a);
    for (int jj = 0; jj < count[b]; ++jj) {
      const Eigen::Map<const Eigen::VectorXd> gj(GJ[b] + jj * n, n);
      for (int ii = 0; ii < count[a]; ++ii) {
        const double h = Ja.col(cols[a][ii]).dot(gj);
        const int i = cols[a][ii], j = cols[b][jj];
        // Stored rows(a) x cols(b), or its transpose (AddAt).
        if (slot.transposed) {
          target[j + i * m[b]] += h;
        } else {
          target[i + j * m[a]] += h;
        }
      }
    }
  };
  add(slots_[k][0], 0, 0);
  if (e.num_cliques == 2) {
    add(slots_[k][1], 1, 1);
    add(slots_[k][2], 0, 1);
  }
  return true;
}

void NewtonSystem::AssembleIsland(int i, const double* G_data, const std::vector<int>& G_offset,
                                  Scratch* scratch) {
  if (dense_) {
    AssembleDenseIsland(i, G_data, G_offset, scratch);
  } else if (structured_[i]) {
    AssembleStructuredIsland(i, G_data, G_offset);
  } else {
    AssembleSparseIsland(i, G_data, G_offset, scratch);
  }
}

void NewtonSystem::AssembleDenseIsland(int i, const double* G_data,
                                       const std::vector<int>& G_offset, Scratch* scratch) {
  const ContactProblem& p = *problem_;
  const Islands& is = *islands_;
  const std::vector<int>& off = local_offset_;
  const int n = IslandSize(i);
  Map H(H_.data() + dense_offset_[i], n, n);
  H.setZero();
  // A: block diagonal, one block per clique of the island.
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q];
    H.block(off[c], off[c], p.clique_size(c), p.clique_size(c)) = ABlock(c);
  }
  // J^T G J: blocks (a, b) += J_a^T (G J_b) for the one or two cliques of each constraint.
  Eigen::Matrix<double, 3, 6> point_block[2];  // a point contact's blocks, formed here
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    if (IsZeroBlock(G_data + G_offset[k], e.num_rows)) continue;
    if (e.point_contact >= 0)
      for (int b = 0; b < e.num_cliques; ++b) point_block[b] = p.PointContactBlock(k, b);
    const auto J = [&](int b) -> ConstMap {
      if (e.point_contact >= 0) return {point_block[b].data(), 3, 6};
      return Jacobian(k, b);
    };
    const ConstMap G(G_data + G_offset[k], e.num_rows, e.num_rows);
    for (int b = 0; b < e.num_cliques; ++b) {
      const int mb = p.clique_size(e.clique[b]);
      Map GJ = ScratchView(&scratch->GJ[0], e.num_rows, mb);
      GJ.noalias() = G * J(b);
      for (int a = 0; a < e.num_cliques; ++a) {
        const int ma = p.clique_size(e.clique[a]);
        H.block(off[e.clique[a]], off[e.clique[b]], ma, mb).noalias() += J(a).transpose() * GJ;
      }
    }
  }
}

void NewtonSystem::AddAt(BlockCholesky::Slot slot, const Eigen::Ref<const Eigen::MatrixXd>& Ja,
                         const Map& GJb, int ma, int mb) {
  double* target = block_.data() + slot.offset;
  if (slot.transposed) {
    Map(target, mb, ma).noalias() += GJb.transpose() * Ja;  // (J_a^T G J_b)^T, G symmetric
  } else {
    Map(target, ma, mb).noalias() += Ja.transpose() * GJb;
  }
}

// J_a^T G J_a, J_b^T G J_b and J_a^T G J_b of a contact (3 rows) between free bodies (6
// velocities each) with fixed-size kernels; slots as in slots_.
void NewtonSystem::AddContactBlocks(const ContactProblem& p, int k, const double* G_data) {
  using Matrix36 = Eigen::Matrix<double, 3, 6>;
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  const ConstraintEntry& e = p.entry(k);
  const Eigen::Map<const Eigen::Matrix3d> G(G_data);
  const Eigen::Map<const Matrix36> Ja(p.jacobian_block(k, 0));
  const Matrix36 GJa = G * Ja;
  double* v = block_.data();
  Eigen::Map<Matrix6>(v + slots_[k][0].offset).noalias() += Ja.transpose() * GJa;
  if (e.num_cliques == 1) return;
  const Eigen::Map<const Matrix36> Jb(p.jacobian_block(k, 1));
  const Matrix36 GJb = G * Jb;
  Eigen::Map<Matrix6>(v + slots_[k][1].offset).noalias() += Jb.transpose() * GJb;
  if (slots_[k][2].transposed) {
    Eigen::Map<Matrix6>(v + slots_[k][2].offset).noalias() += GJb.transpose() * Ja;
  } else {
    Eigen::Map<Matrix6>(v + slots_[k][2].offset).noalias() += Ja.transpose() * GJb;
  }
}

namespace {

using Matrix6 = Eigen::Matrix<double, 6, 6>;

// C = W (-[r]x), i.e. column j is W (e_j x r).
inline Eigen::Matrix3d TimesMinusSkew(const Eigen::Matrix3d& W, const Eigen::Vector3d& r) {
  Eigen::Matrix3d C;
  C.col(0) = r.y() * W.col(2) - r.z() * W.col(1);
  C.col(1) = r.z() * W.col(0) - r.x() * W.col(2);
  C.col(2) = r.x() * W.col(1) - r.y() * W.col(0);
  return C;
}

// W = R G R^T. In stiction (and wherever G = diag(g_t, g_t, g_n), as the prediction's G)
// this is g_t I + (g_n - g_t) n n^T with n = R e_z, since R R^T = I: 6 multiplications
// instead of 54.
inline Eigen::Matrix3d WorldFrameHessian(const Eigen::Matrix3d& R, const Eigen::Matrix3d& G) {
  if (G(1, 0) == 0.0 && G(2, 0) == 0.0 && G(2, 1) == 0.0 && G(0, 1) == 0.0 && G(0, 2) == 0.0 &&
      G(1, 2) == 0.0 && G(0, 0) == G(1, 1)) {
    const Eigen::Vector3d n = R.col(2);
    Eigen::Matrix3d W = (G(2, 2) - G(0, 0)) * (n * n.transpose());
    W.diagonal().array() += G(0, 0);
    return W;
  }
  return R * G * R.transpose();
}

// The 6 x 6 block H += s [[[r_top]x C_bottom, C_top^T], [C_bottom, W]], s = -1 when
// `subtract` (a cross block of two bodies of opposite signs), else +1.
inline void AddPointContactBlock(double* H, const Eigen::Vector3d& r_top,
                                 const Eigen::Matrix3d& C_top, const Eigen::Matrix3d& C_bottom,
                                 const Eigen::Matrix3d& W, bool subtract) {
  Eigen::Map<Matrix6> h(H);
  const double s = subtract ? -1.0 : 1.0;  // exact: the same bits as adding or subtracting
  for (int j = 0; j < 3; ++j) {
    h.block<3, 1>(0, j) += s * r_top.cross(C_bottom.col(j));
    h.block<3, 1>(3, j) += s * C_bottom.col(j);
    h.block<3, 1>(0, j + 3) += s * C_top.row(j).transpose();
    h.block<3, 1>(3, j + 3) += s * W.col(j);
  }
}

}  // namespace

// J^T G J of a contact with a factored Jacobian (PointContactJacobian): with W = R G R^T
// (G in world axes) and X_b = -[r_b]x, block (a, b) is
//   sign_a sign_b [[X_a^T W X_b, X_a^T W], [W X_b, W]],
// where X_a^T = [r_a]x and X_a^T W = (W X_a)^T. W X_b and [r_a]x (W X_b) are cross
// products, 18 multiplications each: 144 for a contact between two bodies against 432
// for the dense 3 x 6 products of AddContactBlocks (fewer in stiction, WorldFrameHessian).
void NewtonSystem::AddPointContactBlocks(const ContactProblem& p, int k, const double* G_data) {
  const ConstraintEntry& e = p.entry(k);
  const PointContactJacobian& f = p.point_contact(k);
  const Eigen::Matrix3d W = WorldFrameHessian(f.R_WC, Eigen::Map<const Eigen::Matrix3d>(G_data));
  const Eigen::Matrix3d C_a = TimesMinusSkew(W, f.r_W[0]);  // W X_a
  double* v = block_.data();
  AddPointContactBlock(v + slots_[k][0].offset, f.r_W[0], C_a, C_a, W, false);
  if (e.num_cliques == 1) return;
  const Eigen::Matrix3d C_b = TimesMinusSkew(W, f.r_W[1]);  // W X_b
  AddPointContactBlock(v + slots_[k][1].offset, f.r_W[1], C_b, C_b, W, false);
  const bool subtract = f.sign[0] != f.sign[1];
  if (slots_[k][2].transposed) {  // block (b, a) = [[X_b^T W X_a, X_b^T W], [W X_a, W]]
    AddPointContactBlock(v + slots_[k][2].offset, f.r_W[1], C_b, C_a, W, subtract);
  } else {
    AddPointContactBlock(v + slots_[k][2].offset, f.r_W[0], C_a, C_b, W, subtract);
  }
}

bool NewtonSystem::IsSmallThreeRow(const ContactProblem& p, int k) {
  const ConstraintEntry& e = p.entry(k);
  if (e.num_rows != 3 || !p.has_dense_jacobian(k)) return false;
  for (int b = 0; b < e.num_cliques; ++b)
    if (p.clique_size(e.clique[b]) > kSmallCliqueSize) return false;
  return true;
}

namespace {

// target(i * row_step + j * column_step) += J_a(:, i) . GJ_b(:, j) for an m_a-column J_a and
// an m_b-column GJ_b, both 3 rows, column-major (AddSmallThreeRowBlocks). The column counts
// are MA and MB when those are positive (loops of fixed length, which the compiler unrolls),
// else m_a and m_b.
template <int MA, int MB>
void AddJTransposeGJ(const double* J_a, const double* GJ_b, int m_a, int m_b, int row_step,
                     int column_step, double* target) {
  const int columns_a = MA > 0 ? MA : m_a, columns_b = MB > 0 ? MB : m_b;
  for (int j = 0; j < columns_b; ++j) {
    const double* g = GJ_b + 3 * j;
    for (int i = 0; i < columns_a; ++i) {
      const double* J_i = J_a + 3 * i;
      target[i * row_step + j * column_step] += J_i[0] * g[0] + J_i[1] * g[1] + J_i[2] * g[2];
    }
  }
}

}  // namespace

bool NewtonSystem::AddSmallThreeRowBlocks(const ContactProblem& p, int k, const double* G_data) {
  if (!IsSmallThreeRow(p, k)) return false;
  const ConstraintEntry& e = p.entry(k);
  constexpr int kMaxSize = kSmallCliqueSize;
  int m[2] = {0, 0};
  const double* J[2] = {nullptr, nullptr};
  for (int b = 0; b < e.num_cliques; ++b) {
    m[b] = p.clique_size(e.clique[b]);
    J[b] = p.jacobian_block(k, b);
  }
  // G J_b, column j = G J_b(:, j), each entry summed over r = 0, 1, 2 in order.
  double GJ[2][3 * kMaxSize];
  const double* G = G_data;  // 3 x 3, column-major
  for (int b = 0; b < e.num_cliques; ++b) {
    for (int j = 0; j < m[b]; ++j) {
      const double* J_j = J[b] + 3 * j;
      for (int r = 0; r < 3; ++r)
        GJ[b][r + 3 * j] = G[r] * J_j[0] + G[r + 3] * J_j[1] + G[r + 6] * J_j[2];
    }
  }
  // Block (a, b) += J_a^T (G J_b), stored rows(a) x cols(b) or transposed (AddAt); the
  // sizes of a small tree and of a free body with fixed-length loops.
  const auto add = [&](BlockCholesky::Slot slot, int a, int b) {
    double* target = block_.data() + slot.offset;
    const int row_step = slot.transposed ? m[b] : 1, column_step = slot.transposed ? 1 : m[a];
    const double* J_a = J[a];
    const double* GJ_b = GJ[b];
    if (m[a] == 3 && m[b] == 6)
      return AddJTransposeGJ<3, 6>(J_a, GJ_b, 3, 6, row_step, column_step, target);
    if (m[a] == 6 && m[b] == 6)
      return AddJTransposeGJ<6, 6>(J_a, GJ_b, 6, 6, row_step, column_step, target);
    if (m[a] == 3 && m[b] == 3)
      return AddJTransposeGJ<3, 3>(J_a, GJ_b, 3, 3, row_step, column_step, target);
    AddJTransposeGJ<0, 0>(J_a, GJ_b, m[a], m[b], row_step, column_step, target);
  };
  add(slots_[k][0], 0, 0);
  if (e.num_cliques == 1) return true;
  add(slots_[k][1], 1, 1);
  add(slots_[k][2], 0, 1);
  return true;
}

bool NewtonSystem::IsFreeBodyContact(const ContactProblem& p, int k) {
  const ConstraintEntry& e = p.entry(k);
  if (e.num_rows != 3 || !p.has_dense_jacobian(k)) return false;
  for (int b = 0; b < e.num_cliques; ++b)
    if (p.clique_size(e.clique[b]) != 6) return false;
  return true;
}

void NewtonSystem::AssembleSparseIsland(int i, const double* G_data,
                                        const std::vector<int>& G_offset, Scratch* scratch) {
  const ContactProblem& p = *problem_;
  const Islands& is = *islands_;
  block_.SetZeroPart(i);
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], m = p.clique_size(c);
    double* diagonal = block_.data() + diagonal_slot_[node_of_clique_[c]].offset;
    if (m == 6 && p.has_A(c)) {  // a free body: an unrolled fixed-size sum (the same bits)
      using Matrix6 = Eigen::Matrix<double, 6, 6>;
      Eigen::Map<Matrix6>(diagonal) += Eigen::Map<const Matrix6>(p.A(c).data());
    } else {
      Map(diagonal, m, m) += ABlock(c);
    }
  }
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    if (IsZeroBlock(G_data + G_offset[k], p.entry(k).num_rows)) continue;
    if (p.entry(k).point_contact >= 0) {
      AddPointContactBlocks(p, k, G_data + G_offset[k]);
      continue;
    }
    if (IsFreeBodyContact(p, k)) {
      AddContactBlocks(p, k, G_data + G_offset[k]);
      continue;
    }
    if (AddSmallThreeRowBlocks(p, k, G_data + G_offset[k])) continue;
    if (AddSupported(p, k, G_data + G_offset[k], scratch)) continue;
    const ConstraintEntry& e = p.entry(k);
    const ConstMap G(G_data + G_offset[k], e.num_rows, e.num_rows);
    const int ma = p.clique_size(e.clique[0]);
    Map GJa = ScratchView(&scratch->GJ[0], e.num_rows, ma);
    GJa.noalias() = G * Jacobian(k, 0);
    AddAt(slots_[k][0], Jacobian(k, 0), GJa, ma, ma);
    if (e.num_cliques == 1) continue;
    const int mb = p.clique_size(e.clique[1]);
    Map GJb = ScratchView(&scratch->GJ[1], e.num_rows, mb);
    GJb.noalias() = G * Jacobian(k, 1);
    AddAt(slots_[k][1], Jacobian(k, 1), GJb, mb, mb);
    AddAt(slots_[k][2], Jacobian(k, 0), GJb, ma, mb);
  }
}

bool NewtonSystem::FactorIsland(int i) {
  if (!dense_ && structured_[i])
    return problem_->clique_solver(islands_->cliques[islands_->clique_start[i]])->Factor();
  if (!dense_) return block_.FactorPart(i);
  const int n = IslandSize(i);
  Map H(H_.data() + dense_offset_[i], n, n);
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(H);  // in place: H holds L afterwards
  return llt.info() == Eigen::Success;
}

void NewtonSystem::SolveIsland(int i, double* x, Scratch* scratch) {
  if (dense_) {
    SolveDenseIsland(i, x, scratch);
  } else if (structured_[i]) {
    const int c = islands_->cliques[islands_->clique_start[i]];
    problem_->clique_solver(c)->Solve(x + (*reduced_offset_)[c]);
  } else {
    block_.SolvePart(i, x);
  }
}

void NewtonSystem::SolveDenseIsland(int i, double* x, Scratch* scratch) const {
  const ContactProblem& p = *problem_;
  const Islands& is = *islands_;
  const std::vector<int>& off = *reduced_offset_;
  const int n = IslandSize(i);
  // Gather the island's entries (its cliques are not contiguous in x), solve, scatter.
  VecMap y = VecMap(ScratchView(&scratch->x, n, 1).data(), n);
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], m = p.clique_size(c);
    y.segment(local_offset_[c], m) = VecMap(x + off[c], m);
  }
  const ConstMap L(H_.data() + dense_offset_[i], n, n);
  L.triangularView<Eigen::Lower>().solveInPlace(y);
  L.transpose().triangularView<Eigen::Upper>().solveInPlace(y);
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], m = p.clique_size(c);
    VecMap(x + off[c], m) = y.segment(local_offset_[c], m);
  }
}

void NewtonSystem::Assemble(const double* G_data, const std::vector<int>& G_offset) {
  for (int i = 0; i < islands_->num_islands; ++i) AssembleIsland(i, G_data, G_offset, &scratch_);
}

bool NewtonSystem::Factor() {
  for (int i = 0; i < islands_->num_islands; ++i)
    if (!FactorIsland(i)) return false;
  return true;
}

void NewtonSystem::Solve(Eigen::Ref<Eigen::VectorXd> x) {
  CSIM_CHECK(x.size() == n_);
  for (int i = 0; i < islands_->num_islands; ++i) SolveIsland(i, x.data(), &scratch_);
}

}  // namespace csim::solver
