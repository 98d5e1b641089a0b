#pragma once
// The Newton system of SAP (math.md §2.6, §4.6): H dv = -grad with
//   H = A + J^T G J      (SPD: A is SPD and G is PSD)
// over the participating cliques only (cliques touched by at least one constraint), in
// "reduced" velocity coordinates where those cliques are stacked in problem order.
//
// H is block sparse: A contributes the diagonal clique blocks, and a constraint on cliques
// (a, b) contributes to blocks (a, a), (a, b), (b, a), (b, b). Two factorizations:
//   - dense in-place Cholesky (Eigen::LLT on a Map of a reusable buffer) when the reduced
//     size is at most `dense_threshold`: allocation-free once the buffers have grown;
//   - sparse Cholesky (Eigen::SimplicialLLT, AMD ordering) otherwise. The symbolic analysis
//     is redone only when the problem structure changes (Setup); Eigen's numeric
//     factorization allocates temporaries, so the large-problem path is not allocation-free.
// Rejected for this first version: a supernodal block Cholesky with a junction tree, as in
// the paper and Drake (the natural next step for large scenes); CHOLMOD (SuiteSparse is not
// installed in the build image).

#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>

#include "engine/solver/contact_problem.h"

namespace csim::solver {

class NewtonSystem {
 public:
  /// Prepares for `problem`: reduced_offset[c] is the first reduced velocity of clique c, or
  /// -1 when the clique does not participate; num_reduced is the reduced size.
  /// Chooses dense (num_reduced <= dense_threshold) or sparse storage.
  void Setup(const ContactProblem& problem, const std::vector<int>& reduced_offset,
             int num_reduced, int dense_threshold);

  /// H = A + sum_k J_k^T G_k J_k, with G_k the n_k x n_k column-major block at
  /// G_data + G_offset[k].
  void Assemble(const double* G_data, const std::vector<int>& G_offset);

  /// Cholesky factorization of the assembled H. Returns false on failure (H not SPD, e.g.
  /// non-finite entries).
  bool Factor();

  /// Overwrites x (num_reduced) with H^{-1} x. Precondition: Factor() returned true.
  void Solve(Eigen::Ref<Eigen::VectorXd> x);

  bool dense() const { return dense_; }

 private:
  void AssembleDense(const double* G_data, const std::vector<int>& G_offset);
  void AssembleSparse(const double* G_data, const std::vector<int>& G_offset);
  // Adds `block` (rows at reduced row0, cols at reduced col0) to the triplets, lower part only.
  void AddLowerTriplets(const Eigen::Ref<const Eigen::MatrixXd>& block, int row0, int col0);
  // Scratch view of size rows x cols.
  Eigen::Map<Eigen::MatrixXd> Scratch(std::vector<double>* buffer, int rows, int cols);

  const ContactProblem* problem_ = nullptr;
  const std::vector<int>* reduced_offset_ = nullptr;
  int n_ = 0;
  bool dense_ = true;
  std::vector<double> H_;        // dense H, n x n column-major, factorized in place
  std::vector<double> GJ_;       // scratch n_k x m_c
  std::vector<double> block_;    // scratch m_a x m_b
  std::vector<Eigen::Triplet<double>> triplets_;
  Eigen::SparseMatrix<double> H_sparse_;
  Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> sparse_llt_;
  bool sparse_analyzed_ = false;
};

}  // namespace csim::solver
