#pragma once
// The Newton system of SAP (math.md §2.6, §4.6): H dv = -grad with
//   H = A + J^T G J      (SPD: A is SPD and G is PSD)
// over the participating cliques only (cliques touched by at least one constraint), in
// "reduced" velocity coordinates where those cliques are stacked in problem order.
//
// H is block sparse: A contributes the diagonal clique blocks, and a constraint on cliques
// (a, b) contributes to blocks (a, a), (a, b), (b, a), (b, b). Two factorizations:
//   - dense in-place Cholesky (Eigen::LLT on a Map of a reusable buffer) when the reduced
//     size is at most `dense_threshold` (tiny problems, where block bookkeeping costs more
//     than it saves);
//   - block-sparse Cholesky on the clique graph otherwise (block_cholesky.h): minimum-degree
//     order, symbolic analysis reused while the contact graph does not change, numeric
//     factorization on the clique blocks.
// Both paths are allocation-free once their buffers have grown to the largest problem seen.
// Assembly writes each constraint's J_a^T G J_b straight into the stored block, computing
// G J_b once per clique of the constraint.

#include <array>
#include <vector>

#include <Eigen/Dense>

#include "engine/solver/block_cholesky.h"
#include "engine/solver/contact_problem.h"

namespace csim::solver {

class NewtonSystem {
 public:
  /// Prepares for `problem`: reduced_offset[c] is the first reduced velocity of clique c, or
  /// -1 when the clique does not participate; num_reduced is the reduced size.
  /// Chooses dense (num_reduced <= dense_threshold) or block-sparse storage.
  void Setup(const ContactProblem& problem, const std::vector<int>& reduced_offset,
             int num_reduced, int dense_threshold);

  /// H = A + sum_k J_k^T G_k J_k, with G_k the n_k x n_k column-major block at
  /// G_data + G_offset[k]. With `active` (per clique, nonzero = needed), the block path
  /// assembles only the active cliques' blocks and the constraints whose cliques are active
  /// (the active cliques must be a union of islands); the dense path ignores it.
  void Assemble(const double* G_data, const std::vector<int>& G_offset,
                const std::vector<char>* active = nullptr);

  /// Cholesky factorization of the assembled H (of its active part). Returns false on
  /// failure (H not SPD, e.g. non-finite entries).
  bool Factor(const std::vector<char>* active = nullptr);

  /// Overwrites x (num_reduced) with H^{-1} x on the active part (other entries: untouched
  /// on the block path, H^{-1} x of the whole H on the dense path). Precondition: Factor()
  /// returned true with the same `active`.
  void Solve(Eigen::Ref<Eigen::VectorXd> x, const std::vector<char>* active = nullptr);

  /// Overloads taking the mask by reference.
  void Assemble(const double* G_data, const std::vector<int>& G_offset,
                const std::vector<char>& active) { Assemble(G_data, G_offset, &active); }
  bool Factor(const std::vector<char>& active) { return Factor(&active); }
  void Solve(Eigen::Ref<Eigen::VectorXd> x, const std::vector<char>& active) { Solve(x, &active); }

  bool dense() const { return dense_; }
  /// Symbolic analyses of the block-sparse path so far (reuse shows as no increase).
  int num_analyses() const { return block_.num_analyses(); }

 private:
  void AssembleDense(const double* G_data, const std::vector<int>& G_offset);
  void AssembleSparse(const double* G_data, const std::vector<int>& G_offset,
                      const std::vector<char>* active);
  // node_active_ from a per-clique mask (all active when null).
  void SetActiveNodes(const std::vector<char>* active);
  // Block-sparse setup: the clique graph, its analysis and every constraint's slots.
  void SetupSparse();
  // Fixed-size assembly of constraint k when IsFreeBodyContact(p, k).
  void AddContactBlocks(const ContactProblem& p, int k, const double* G_data);
  // Three rows on cliques of six velocities (a contact between free bodies).
  static bool IsFreeBodyContact(const ContactProblem& p, int k);
  // Scratch view of size rows x cols.
  Eigen::Map<Eigen::MatrixXd> Scratch(std::vector<double>* buffer, int rows, int cols);
  // Adds `block` (rows(a) x cols(b) of H) at `slot`, transposing if the slot says so.
  void AddAt(BlockCholesky::Slot slot, const Eigen::Ref<const Eigen::MatrixXd>& Ja,
             const Eigen::Map<Eigen::MatrixXd>& GJb, int ma, int mb);

  const ContactProblem* problem_ = nullptr;
  const std::vector<int>* reduced_offset_ = nullptr;
  int n_ = 0;
  bool dense_ = true;
  std::vector<double> H_;        // dense H, n x n column-major, factorized in place
  std::vector<double> GJ_[2];    // scratch n_k x m_c, per clique of a constraint
  // Block-sparse path: node = participating clique in problem order.
  BlockCholesky block_;
  std::vector<int> node_of_clique_;            // -1 if not participating
  std::vector<int> node_size_, node_offset_;   // per node: clique size, reduced offset
  std::vector<std::pair<int, int>> edges_;     // node pairs coupled by a constraint
  std::vector<BlockCholesky::Slot> diagonal_slot_;         // per node
  std::vector<std::array<BlockCholesky::Slot, 3>> slots_;  // per constraint: aa, bb, ab
  std::vector<char> node_active_;              // per node, for Factor/Solve
};

}  // namespace csim::solver
