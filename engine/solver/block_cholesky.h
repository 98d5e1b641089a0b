#pragma once
// Block-sparse Cholesky factorization H = L L^T of a symmetric positive definite matrix
// whose rows and columns are grouped into nodes (the cliques of the SAP problem: one tree
// each, 6 velocities for a free body) and whose off-diagonal blocks are nonzero only for
// the node pairs given as edges (two trees sharing a contact).
//
// Design (docs/design/sap-solver.md §3.2; SAP §V-B uses a supernodal factorization on the same
// structure):   - Analyze: a minimum-degree elimination order on the node graph (degree counted in
//     scalar rows, ties broken by node index: deterministic), eliminated explicitly, which
//     yields the block pattern of L with its fill; then the flat storage of every block and
//     the list of Schur-complement updates (target block of every L_ik L_jk^T). Analyze is
//     skipped when the pattern (sizes and edges) equals the previous one, so a step whose
//     contact graph did not change pays nothing, and all storage keeps its capacity, so a
//     pattern no larger than one seen before does not allocate.
//   - Factor: right-looking block Cholesky over the precomputed update list; dense kernels
//     on the (small) blocks through Eigen maps of the flat storage: no allocation. When
//     every block is 6 x 6 (scenes of free bodies) fixed-size kernels are used (unrolled),
//     in the factorization and in the solves.
//   - Solve: block forward and backward substitution in elimination order.
//   - Parts (SetPartition): when the node graph falls apart into independent groups (the
//     SAP islands), each group's columns, in elimination order, are factorized and solved
//     by themselves with exactly the operations the whole factorization applies to them
//     (groups exchange no Schur updates), at a cost proportional to the group. Different
//     groups touch disjoint storage and disjoint entries of x, so they may be processed
//     concurrently. A per-node mask over all columns was rejected: every group would pay
//     for a pass over the whole problem.
// Alternatives rejected: Eigen::SimplicialLLT (scalar, allocates temporaries and redoes
// the symbolic analysis every solve); SuiteSparse CHOLMOD, slower on the clutter's largest
// islands, simplicial and supernodal alike (bench/factorization_bench.cc,
// results/factorization.md); a dense Cholesky (kept by NewtonSystem behind dense_threshold
// as the tests' reference), no faster on the smallest piles and far slower on larger ones.

#include <array>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace csim::solver {

class BlockCholesky {
 public:
  /// Where a block (a, b) of H lives: `offset` into the storage of a block stored as
  /// rows(row) x cols(col), column-major; `transposed` when the stored block is (b, a)^T.
  struct Slot {
    int offset = -1;
    bool transposed = false;
  };

  /// Symbolic analysis for nodes 0..n-1 with block_size[i] >= 1 rows each, placed in the
  /// right-hand side at node_offset[i], and off-diagonal nonzero blocks for the node pairs
  /// in `edges` (i != j, either order, duplicates allowed). Returns true when the analysis
  /// was redone, false when the pattern equals the previous call's (nothing changes).
  bool Analyze(const std::vector<int>& block_size, const std::vector<int>& node_offset,
               const std::vector<std::pair<int, int>>& edges);

  /// Slot of block (a, b) of H. Precondition: a == b or (a, b) was an edge.
  Slot Find(int a, int b) const;

  /// Zeroes every stored block (H = 0 before assembly).
  void SetZero();

  /// Storage of every block; a Slot's offset points into it.
  double* data() { return values_.data(); }

  /// Factorizes the assembled H in place. Returns false if H is not positive definite.
  bool Factor();

  /// Overwrites x (the node layout of Analyze) with H^{-1} x. Precondition: Factor() true.
  void Solve(double* x) const;

  /// Groups the nodes into `num_parts` parts: part_of_node[i] in [0, num_parts) for every
  /// node of the last Analyze. Precondition (checked): no stored block, fill included,
  /// couples two parts, i.e. every part is a union of connected components of the graph.
  /// O(nodes + blocks); no allocation once the capacity has grown.
  void SetPartition(const std::vector<int>& part_of_node, int num_parts);

  /// Zeroes the stored blocks of the part's columns (its share of H before assembly).
  void SetZeroPart(int part);

  /// Factor() restricted to the part's columns; the same arithmetic, in the same order, as
  /// the whole factorization applies to them. False if the part is not positive definite.
  bool FactorPart(int part);

  /// Solve() on the part's entries of x only (the others are not touched). Precondition:
  /// FactorPart(part) returned true.
  void SolvePart(int part, double* x) const;

  int num_nodes() const { return static_cast<int>(size_.size()); }
  /// Number of stored blocks (diagonal and off-diagonal, fill included).
  int num_blocks() const { return static_cast<int>(column_start_.empty() ? 0 : column_start_.back()); }
  /// Number of times the symbolic analysis ran (for tests and statistics).
  int num_analyses() const { return num_analyses_; }

 private:
  // Factorizes column p (elimination position) and applies its Schur updates.
  bool FactorColumn(int p);
  // FactorColumn when every block is 6 x 6 (free bodies): fixed-size kernels.
  bool FactorColumnSix(int p);
  // Forward (L y = x) and backward (L^T x = y) substitution steps of column p.
  void ForwardColumn(int p, double* x) const;
  void BackwardColumn(int p, double* x) const;
  // The same when every block is 6 x 6: fixed-size kernels.
  void ForwardColumnSix(int p, double* x) const;
  void BackwardColumnSix(int p, double* x) const;
  // Minimum-degree order; fills position_, order_ and every column's row list.
  void Order();
  // Block storage offsets and the Schur-update list from the row lists.
  void LayOut();
  // Sum of the sizes of a node's current neighbours (Order()).
  int ScalarDegree(int node) const;
  // Offset of stored block (row position r, column position c), r >= c.
  int StoredOffset(int r, int c) const;

  // Pattern of the last analysis (to detect reuse).
  std::vector<int> size_, node_offset_;
  std::vector<std::pair<int, int>> edges_;
  std::vector<std::pair<int, int>> edges_in_;  // scratch: normalized input edges
  // Elimination.
  std::vector<int> order_;     // position -> node
  std::vector<int> position_;  // node -> position
  std::vector<std::vector<int>> adjacency_;  // scratch of Order(), capacity kept
  std::vector<int> merged_;                  // scratch of Order()
  std::vector<char> eliminated_;             // scratch of Order()
  std::vector<int> degree_;                  // scratch of Order(): scalar degree per node
  std::vector<std::pair<int, int>> heap_;    // scratch of Order(): (degree, node) min-heap
  // Column p (in elimination order) holds the diagonal block and one block per later row
  // position in rows_[column_start_[p] + 1 .. column_start_[p + 1]) (the first entry is p
  // itself), sorted; block b is at values_[block_offset_[b]].
  std::vector<int> column_start_, rows_, block_offset_;
  std::vector<int> column_value_start_;  // per column (n + 1): its blocks' storage range
  std::vector<double> values_;
  // Schur updates of column p: update_start_[p] .. update_start_[p + 1) in update_ of
  // (block index i, block index j, target offset): target -= L_i L_j^T.
  std::vector<int> update_start_;
  std::vector<std::array<int, 3>> update_;
  // Parts (SetPartition): part q owns the elimination positions
  // part_columns_[part_start_[q] .. part_start_[q + 1]), ascending.
  std::vector<int> part_start_, part_columns_;
  int num_analyses_ = 0;
  bool all_six_ = false;  // every node has 6 rows
};

/// Dense 6 x 6 kernels of the free-body path (a 6 x 6 block column-major, entry (i, j) at
/// a[i + 6 j]), also used by the free-motion solve of the theta method (one block per free
/// body). Unrolled, no allocation; they give Eigen's LLT results bit for bit in the default
/// x86-64 build (block_cholesky.cc says why they exist and how they match).
///
/// In-place Cholesky factor of the lower triangle (the strict upper triangle is neither read
/// nor written). Returns false on a pivot <= 0, Eigen's test (the block is then partly
/// overwritten).
bool CholeskySix(double* a);
/// x = L^{-1} x, with L the lower triangle of a factor from CholeskySix.
void SolveLowerSix(const double* L, double* x);
/// x = L^{-T} x, with L the lower triangle of a factor from CholeskySix.
void SolveLowerTransposedSix(const double* L, double* x);

}  // namespace csim::solver
