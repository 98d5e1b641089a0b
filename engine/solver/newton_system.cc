#include "engine/solver/newton_system.h"

#include "engine/common/check.h"

namespace csim::solver {

using Map = Eigen::Map<Eigen::MatrixXd>;
using ConstMap = Eigen::Map<const Eigen::MatrixXd>;

Eigen::Map<Eigen::MatrixXd> NewtonSystem::Scratch(std::vector<double>* buffer, int rows,
                                                   int cols) {
  const size_t size = static_cast<size_t>(rows) * cols;
  if (buffer->size() < size) buffer->resize(size);
  return {buffer->data(), rows, cols};
}

void NewtonSystem::Setup(const ContactProblem& problem, const std::vector<int>& reduced_offset,
                         int num_reduced, int dense_threshold) {
  problem_ = &problem;
  reduced_offset_ = &reduced_offset;
  n_ = num_reduced;
  dense_ = n_ <= dense_threshold;
  if (dense_) {
    Scratch(&H_, n_, n_);
  } else {
    SetupSparse();
  }
}

void NewtonSystem::SetupSparse() {
  const ContactProblem& p = *problem_;
  const std::vector<int>& off = *reduced_offset_;
  node_of_clique_.assign(p.num_cliques(), -1);
  node_size_.clear();
  node_offset_.clear();
  for (int c = 0; c < p.num_cliques(); ++c) {
    if (off[c] < 0) continue;
    node_of_clique_[c] = static_cast<int>(node_size_.size());
    node_size_.push_back(p.clique_size(c));
    node_offset_.push_back(off[c]);
  }
  edges_.clear();
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    if (e.num_cliques == 2)
      edges_.emplace_back(node_of_clique_[e.clique[0]], node_of_clique_[e.clique[1]]);
  }
  block_.Analyze(node_size_, node_offset_, edges_);
  diagonal_slot_.resize(node_size_.size());
  for (int i = 0; i < static_cast<int>(node_size_.size()); ++i) diagonal_slot_[i] = block_.Find(i, i);
  slots_.resize(p.num_constraints());
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    const int a = node_of_clique_[e.clique[0]];
    slots_[k][0] = diagonal_slot_[a];
    if (e.num_cliques == 2) {
      const int b = node_of_clique_[e.clique[1]];
      slots_[k][1] = diagonal_slot_[b];
      slots_[k][2] = block_.Find(a, b);
    }
  }
}

void NewtonSystem::Assemble(const double* G_data, const std::vector<int>& G_offset,
                            const std::vector<char>* active) {
  if (dense_) {
    AssembleDense(G_data, G_offset);
  } else {
    AssembleSparse(G_data, G_offset, active);
  }
}

void NewtonSystem::SetActiveNodes(const std::vector<char>* active) {
  const ContactProblem& p = *problem_;
  node_active_.assign(node_size_.size(), 1);
  if (active == nullptr) return;
  for (int c = 0; c < p.num_cliques(); ++c)
    if (node_of_clique_[c] >= 0) node_active_[node_of_clique_[c]] = (*active)[c];
}

void NewtonSystem::AssembleDense(const double* G_data, const std::vector<int>& G_offset) {
  const ContactProblem& p = *problem_;
  const std::vector<int>& off = *reduced_offset_;
  Map H(H_.data(), n_, n_);
  H.setZero();
  // A: block diagonal, one block per participating clique.
  for (int c = 0; c < p.num_cliques(); ++c)
    if (off[c] >= 0) H.block(off[c], off[c], p.clique_size(c), p.clique_size(c)) = p.A(c);
  // J^T G J: blocks (a, b) += J_a^T (G J_b) for the one or two cliques of each constraint.
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    const ConstMap G(G_data + G_offset[k], e.num_rows, e.num_rows);
    for (int b = 0; b < e.num_cliques; ++b) {
      const int mb = p.clique_size(e.clique[b]);
      Map GJ = Scratch(&GJ_[0], e.num_rows, mb);
      GJ.noalias() = G * p.jacobian(k, b);
      for (int a = 0; a < e.num_cliques; ++a) {
        const int ma = p.clique_size(e.clique[a]);
        H.block(off[e.clique[a]], off[e.clique[b]], ma, mb).noalias() +=
            p.jacobian(k, a).transpose() * GJ;
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
  const Eigen::Map<const Matrix36> Ja(p.jacobian(k, 0).data());
  const Matrix36 GJa = G * Ja;
  double* v = block_.data();
  Eigen::Map<Matrix6>(v + slots_[k][0].offset).noalias() += Ja.transpose() * GJa;
  if (e.num_cliques == 1) return;
  const Eigen::Map<const Matrix36> Jb(p.jacobian(k, 1).data());
  const Matrix36 GJb = G * Jb;
  Eigen::Map<Matrix6>(v + slots_[k][1].offset).noalias() += Jb.transpose() * GJb;
  if (slots_[k][2].transposed) {
    Eigen::Map<Matrix6>(v + slots_[k][2].offset).noalias() += GJb.transpose() * Ja;
  } else {
    Eigen::Map<Matrix6>(v + slots_[k][2].offset).noalias() += Ja.transpose() * GJb;
  }
}

bool NewtonSystem::IsFreeBodyContact(const ContactProblem& p, int k) {
  const ConstraintEntry& e = p.entry(k);
  if (e.num_rows != 3) return false;
  for (int b = 0; b < e.num_cliques; ++b)
    if (p.clique_size(e.clique[b]) != 6) return false;
  return true;
}

void NewtonSystem::AssembleSparse(const double* G_data, const std::vector<int>& G_offset,
                                  const std::vector<char>* active) {
  const ContactProblem& p = *problem_;
  block_.SetZero();
  for (int c = 0; c < p.num_cliques(); ++c) {
    const int node = node_of_clique_[c];
    if (node < 0 || (active != nullptr && !(*active)[c])) continue;
    const int m = p.clique_size(c);
    Map(block_.data() + diagonal_slot_[node].offset, m, m) += p.A(c);
  }
  for (int k = 0; k < p.num_constraints(); ++k) {
    if (active != nullptr && !(*active)[p.entry(k).clique[0]]) continue;  // island done
    if (IsFreeBodyContact(p, k)) {
      AddContactBlocks(p, k, G_data + G_offset[k]);
      continue;
    }
    const ConstraintEntry& e = p.entry(k);
    const ConstMap G(G_data + G_offset[k], e.num_rows, e.num_rows);
    const int ma = p.clique_size(e.clique[0]);
    Map GJa = Scratch(&GJ_[0], e.num_rows, ma);
    GJa.noalias() = G * p.jacobian(k, 0);
    AddAt(slots_[k][0], p.jacobian(k, 0), GJa, ma, ma);
    if (e.num_cliques == 1) continue;
    const int mb = p.clique_size(e.clique[1]);
    Map GJb = Scratch(&GJ_[1], e.num_rows, mb);
    GJb.noalias() = G * p.jacobian(k, 1);
    AddAt(slots_[k][1], p.jacobian(k, 1), GJb, mb, mb);
    AddAt(slots_[k][2], p.jacobian(k, 0), GJb, ma, mb);
  }
}

bool NewtonSystem::Factor(const std::vector<char>* active) {
  if (dense_) {
    Map H(H_.data(), n_, n_);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(H);  // in place: H holds L afterwards
    return llt.info() == Eigen::Success;
  }
  SetActiveNodes(active);
  return block_.Factor(&node_active_);
}

void NewtonSystem::Solve(Eigen::Ref<Eigen::VectorXd> x, const std::vector<char>* active) {
  CSIM_CHECK(x.size() == n_);
  if (dense_) {
    const ConstMap L(H_.data(), n_, n_);
    L.triangularView<Eigen::Lower>().solveInPlace(x);
    L.transpose().triangularView<Eigen::Upper>().solveInPlace(x);
    return;
  }
  (void)active;  // node_active_ was set by Factor
  block_.Solve(x.data(), &node_active_);
}

}  // namespace csim::solver
