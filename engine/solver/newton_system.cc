#include "engine/solver/newton_system.h"

#include "engine/common/check.h"

namespace csim::solver {

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
    // The symbolic analysis depends on the block pattern; redo it for every new problem.
    H_sparse_.resize(n_, n_);
    sparse_analyzed_ = false;
  }
}

void NewtonSystem::Assemble(const double* G_data, const std::vector<int>& G_offset) {
  if (dense_) {
    AssembleDense(G_data, G_offset);
  } else {
    AssembleSparse(G_data, G_offset);
  }
}

void NewtonSystem::AssembleDense(const double* G_data, const std::vector<int>& G_offset) {
  const ContactProblem& p = *problem_;
  const std::vector<int>& off = *reduced_offset_;
  Eigen::Map<Eigen::MatrixXd> H(H_.data(), n_, n_);
  H.setZero();
  // A: block diagonal, one block per participating clique.
  for (int c = 0; c < p.num_cliques(); ++c)
    if (off[c] >= 0) H.block(off[c], off[c], p.clique_size(c), p.clique_size(c)) = p.A(c);
  // J^T G J: blocks (a, b) += J_a^T (G J_b) for the one or two cliques of each constraint.
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    const Eigen::Map<const Eigen::MatrixXd> G(G_data + G_offset[k], e.num_rows, e.num_rows);
    for (int b = 0; b < e.num_cliques; ++b) {
      const int mb = p.clique_size(e.clique[b]);
      Eigen::Map<Eigen::MatrixXd> GJ = Scratch(&GJ_, e.num_rows, mb);
      GJ.noalias() = G * p.jacobian(k, b);
      for (int a = 0; a < e.num_cliques; ++a) {
        const int ma = p.clique_size(e.clique[a]);
        H.block(off[e.clique[a]], off[e.clique[b]], ma, mb).noalias() +=
            p.jacobian(k, a).transpose() * GJ;
      }
    }
  }
}

void NewtonSystem::AddLowerTriplets(const Eigen::Ref<const Eigen::MatrixXd>& block, int row0,
                                    int col0) {
  for (int j = 0; j < block.cols(); ++j)
    for (int i = 0; i < block.rows(); ++i)
      if (row0 + i >= col0 + j) triplets_.emplace_back(row0 + i, col0 + j, block(i, j));
}

void NewtonSystem::AssembleSparse(const double* G_data, const std::vector<int>& G_offset) {
  const ContactProblem& p = *problem_;
  const std::vector<int>& off = *reduced_offset_;
  triplets_.clear();
  for (int c = 0; c < p.num_cliques(); ++c)
    if (off[c] >= 0) AddLowerTriplets(p.A(c), off[c], off[c]);
  for (int k = 0; k < p.num_constraints(); ++k) {
    const ConstraintEntry& e = p.entry(k);
    const Eigen::Map<const Eigen::MatrixXd> G(G_data + G_offset[k], e.num_rows, e.num_rows);
    for (int b = 0; b < e.num_cliques; ++b) {
      const int mb = p.clique_size(e.clique[b]);
      Eigen::Map<Eigen::MatrixXd> GJ = Scratch(&GJ_, e.num_rows, mb);
      GJ.noalias() = G * p.jacobian(k, b);
      for (int a = 0; a < e.num_cliques; ++a) {
        const int ma = p.clique_size(e.clique[a]);
        Eigen::Map<Eigen::MatrixXd> block = Scratch(&block_, ma, mb);
        block.noalias() = p.jacobian(k, a).transpose() * GJ;
        AddLowerTriplets(block, off[e.clique[a]], off[e.clique[b]]);
      }
    }
  }
  // Duplicates are summed; explicit zeros are kept, so the pattern is the block pattern.
  H_sparse_.setFromTriplets(triplets_.begin(), triplets_.end());
}

bool NewtonSystem::Factor() {
  if (dense_) {
    Eigen::Map<Eigen::MatrixXd> H(H_.data(), n_, n_);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(H);  // in place: H holds L afterwards
    return llt.info() == Eigen::Success;
  }
  if (!sparse_analyzed_) {
    sparse_llt_.analyzePattern(H_sparse_);
    sparse_analyzed_ = true;
  }
  sparse_llt_.factorize(H_sparse_);
  return sparse_llt_.info() == Eigen::Success;
}

void NewtonSystem::Solve(Eigen::Ref<Eigen::VectorXd> x) {
  CSIM_CHECK(x.size() == n_);
  if (dense_) {
    Eigen::Map<const Eigen::MatrixXd> L(H_.data(), n_, n_);
    L.triangularView<Eigen::Lower>().solveInPlace(x);
    L.transpose().triangularView<Eigen::Upper>().solveInPlace(x);
    return;
  }
  x = sparse_llt_.solve(x);
}

}  // namespace csim::solver
