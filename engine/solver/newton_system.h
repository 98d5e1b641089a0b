#pragma once
// The Newton system of SAP (docs/design/sap-problem.md §2.2, docs/design/sap-solver.md §3): H dv =
// -grad with   H = A + J^T G J      (SPD: A is SPD and G is PSD)
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
// On the block-sparse path, an island made of one clique that has a CliqueSolver
// (clique_solver.h: an articulated tree), with only body and velocity terms, is handed to
// it instead: its block is never assembled, and the clique's own factorization is used.
// All paths are allocation-free once their buffers have grown to the largest problem seen.
// Assembly writes each constraint's J_a^T G J_b straight into the stored block, computing
// G J_b once per clique of the constraint.
//
// Islands (islands.h): H is block diagonal over the islands, so each island's part of H is
// assembled, factorized and solved by itself (sap_newton.h runs one Newton loop per
// island), at a cost proportional to the island: the block path factorizes the island's
// columns in the global elimination order (BlockCholesky::SetPartition), the dense path
// keeps one dense matrix per island. Islands touch disjoint storage and disjoint entries
// of x, and the scratch that is shared within one call (G J_b, the dense right-hand side)
// is passed in by the caller, one per thread: islands may be processed concurrently.

#include <array>
#include <vector>

#include <Eigen/Dense>

#include "engine/solver/block_cholesky.h"
#include "engine/solver/contact_problem.h"
#include "engine/solver/islands.h"

namespace csim::solver {

class NewtonSystem {
 public:
  /// Scratch of one thread's AssembleIsland/SolveIsland calls.
  struct Scratch {
    std::vector<double> GJ[2];  ///< G J_b of one constraint, per clique of it
    std::vector<double> x;      ///< the island's right-hand side (dense path)
  };

  /// Prepares for `problem`: reduced_offset[c] is the first reduced velocity of clique c, or
  /// -1 when the clique does not participate; num_reduced is the reduced size.
  /// Chooses dense (num_reduced <= dense_threshold) or block-sparse storage. `islands`
  /// (kept by pointer; must outlive the calls) partitions the participating cliques; null
  /// means one island holding every participating clique and constraint.
  void Setup(const ContactProblem& problem, const std::vector<int>& reduced_offset,
             int num_reduced, int dense_threshold, const Islands* islands = nullptr);

  /// Grows `scratch` to what any island of the current problem needs, so that the island
  /// calls below do not allocate.
  void ReserveScratch(Scratch* scratch) const;

  /// Island i's part of H = A + sum_k J_k^T G_k J_k, with G_k the n_k x n_k column-major
  /// block at G_data + G_offset[k], over the island's cliques and constraints.
  void AssembleIsland(int i, const double* G_data, const std::vector<int>& G_offset,
                      Scratch* scratch);

  /// Cholesky factorization of island i's assembled part. Returns false on failure (not
  /// SPD, e.g. non-finite entries).
  bool FactorIsland(int i);

  /// Overwrites island i's entries of x (num_reduced) with H^{-1} x; other entries are not
  /// touched. Precondition: FactorIsland(i) returned true.
  void SolveIsland(int i, double* x, Scratch* scratch);

  /// The same over every island in turn (the whole H).
  void Assemble(const double* G_data, const std::vector<int>& G_offset);
  bool Factor();
  void Solve(Eigen::Ref<Eigen::VectorXd> x);

  bool dense() const { return dense_; }
  /// Symbolic analyses of the block-sparse path so far (reuse shows as no increase).
  int num_analyses() const { return block_.num_analyses(); }

 private:
  void AssembleDenseIsland(int i, const double* G_data, const std::vector<int>& G_offset,
                           Scratch* scratch);
  void AssembleSparseIsland(int i, const double* G_data, const std::vector<int>& G_offset,
                            Scratch* scratch);
  void SolveDenseIsland(int i, double* x, Scratch* scratch) const;
  // islands_ = one island holding every participating clique and constraint.
  void SetupWholeIsland();
  // Dense path: per island its matrix's place in H_ and its cliques' local offsets.
  void SetupDense();
  // Block-sparse setup: the clique graph, its analysis, every constraint's slots, the
  // islands as parts of the factorization.
  void SetupSparse();
  // structured_: the islands whose one clique has a CliqueSolver and whose every
  // constraint is on it alone with a body Jacobian or on one of its velocities.
  void FindStructuredIslands();
  // H_c's terms of such an island handed to its CliqueSolver (clique_solver.h).
  void AssembleStructuredIsland(int i, const double* G_data, const std::vector<int>& G_offset);
  // Fixed-size assembly of constraint k when IsFreeBodyContact(p, k).
  void AddContactBlocks(const ContactProblem& p, int k, const double* G_data);
  // The same from the factored Jacobian of a point contact (PointContactJacobian).
  void AddPointContactBlocks(const ContactProblem& p, int k, const double* G_data);
  // Three rows on cliques of six velocities (a contact between free bodies).
  static bool IsFreeBodyContact(const ContactProblem& p, int k);
  // The blocks of constraint k when it has three dense rows on cliques of at most six
  // velocities (a contact on a small tree, or between one and a free body), with loops on
  // fixed-size storage; false (nothing added) otherwise. Why: at these sizes the generic
  // path's dynamic products cost more in dispatch than in arithmetic. Its sums run in the
  // generic path's order, so the blocks have the same bits.
  bool AddSmallThreeRowBlocks(const ContactProblem& p, int k, const double* G_data);
  static constexpr int kSmallCliqueSize = 6;
  // Three dense rows on cliques of at most kSmallCliqueSize velocities (the free bodies'
  // among them): the constraints AddSmallThreeRowBlocks takes.
  static bool IsSmallThreeRow(const ContactProblem& p, int k);
  // Scratch view of size rows x cols.
  static Eigen::Map<Eigen::MatrixXd> ScratchView(std::vector<double>* buffer, int rows, int cols);
  // Adds `block` (rows(a) x cols(b) of H) at `slot`, transposing if the slot says so.
  void AddAt(BlockCholesky::Slot slot, const Eigen::Ref<const Eigen::MatrixXd>& Ja,
             const Eigen::Map<Eigen::MatrixXd>& GJb, int ma, int mb);
  // The nonzero columns of every generic constraint block (support_); see AddSupported.
  void FindSupports();
  // J_a^T G J_b of generic constraint k on its blocks' nonzero columns only, when
  // FindSupports found them few: false (nothing added) when the dense products are cheaper.
  bool AddSupported(const ContactProblem& p, int k, const double* G, Scratch* scratch);
  int IslandSize(int i) const;
  // Forms the dense block of every body contact (ContactProblem::AddBodyContact: no stored
  // block) and the A block of every matrix-free clique (AddMatrixFreeClique) whose island is
  // not handed to its CliqueSolver (or every one on the dense path), once per Setup, into
  // formed_J_ and formed_A_.
  void FormUnstoredBlocks();
  // Constraint k's block b, and clique c's block of A: the problem's stored ones, or the ones
  // formed above.
  using ConstMap = Eigen::Map<const Eigen::MatrixXd>;
  ConstMap Jacobian(int k, int b) const;
  ConstMap ABlock(int c) const;

  const ContactProblem* problem_ = nullptr;
  const std::vector<int>* reduced_offset_ = nullptr;
  const Islands* islands_ = nullptr;  // the caller's, or &whole_island_
  Islands whole_island_;
  int n_ = 0;
  bool dense_ = true;
  Scratch scratch_;              // of Assemble/Solve over the whole H
  // Dense path: island i's m_i x m_i matrix, column-major, at H_[dense_offset_[i]],
  // factorized in place; local_offset_[c]: clique c's first row within its island.
  std::vector<double> H_;
  std::vector<int> dense_offset_, local_offset_;
  // Block-sparse path: node = participating clique in problem order.
  BlockCholesky block_;
  std::vector<int> node_of_clique_;            // -1 if not participating
  std::vector<int> node_size_, node_offset_;   // per node: clique size, reduced offset
  std::vector<int> node_island_;               // per node: its island (the factor's part)
  std::vector<std::pair<int, int>> edges_;     // node pairs coupled by a constraint
  std::vector<BlockCholesky::Slot> diagonal_slot_;         // per node
  std::vector<std::array<BlockCholesky::Slot, 3>> slots_;  // per constraint: aa, bb, ab
  // Per constraint and clique slot b (index 2 k + b): the columns of J_kb that are not
  // identically zero, support_[support_start_[2 k + b] .. support_start_[2 k + b + 1]).
  // Why: on an articulated tree J_kb spans all the tree's velocities while a contact moves
  // only the path from its body to the root, and a joint limit one velocity; the dense
  // J_a^T G J_b made each constraint cost (tree velocities)^2 per Newton iteration, which
  // dominates a tree with many active joint limits.
  std::vector<int> support_start_, support_;
  std::vector<char> use_support_;  // per constraint: AddSupported rather than dense products
  // Islands solved by their clique's CliqueSolver (block-sparse path only; the dense path is
  // the tests' reference and never uses one). Why: an articulated tree's dense block costs
  // O(nv^3) per Newton iteration, its articulated-body factorization O(bodies + contacts).
  std::vector<char> structured_;    // per island
  std::vector<int> velocity_term_;  // per constraint: its one velocity (J = s e_j^T), or -1
  std::vector<int> formed_offset_;  // per constraint: its formed block in formed_J_, or -1
  std::vector<double> formed_J_;
  std::vector<int> formed_A_offset_;  // per clique: its formed A block in formed_A_, or -1
  std::vector<double> formed_A_;
};

}  // namespace csim::solver
