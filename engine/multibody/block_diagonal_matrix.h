#pragma once
// A square matrix that is zero outside dense diagonal blocks: the mass matrix M of a forest
// and the matrix A of the theta method (one block per tree, docs/design/time-step.md §4.2). Stored
// compactly, block after block, so memory and every pass over it cost O(sum of block sizes^2), not
// O(nv^2). Why it matters: with a dense nv x nv matrix, a pile of hundreds of free bodies
// touches its 6 x 6 diagonal blocks through columns kilobytes apart, and the cache and TLB
// misses make the free-motion stage grow faster than linearly with the number of bodies.

#include <vector>

#include <Eigen/Dense>

#include "engine/multibody/tree_topology.h"

namespace csim::multibody {

class BlockDiagonalMatrix {
 public:
  using BlockMap = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
  using ConstBlockMap = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

  BlockDiagonalMatrix() = default;
  /// Zero matrix with the given diagonal blocks, which must tile [0, n) in order.
  explicit BlockDiagonalMatrix(std::vector<VelocityBlock> blocks);

  int rows() const { return n_; }
  int num_blocks() const { return static_cast<int>(blocks_.size()); }
  const VelocityBlock& range(int k) const { return blocks_[k]; }
  /// The block that row (or column) i lies in.
  int block_of(int i) const { return block_of_[i]; }

  /// Diagonal block k (range(k).size squared), column-major.
  BlockMap block(int k);
  ConstBlockMap block(int k) const;

  /// The rows x cols sub-matrix at (row, col) in global indices; it must lie inside one
  /// diagonal block (checked), e.g. the entries of two joints of the same tree.
  BlockMap sub(int row, int col, int rows, int cols);
  ConstBlockMap sub(int row, int col, int rows, int cols) const;

  /// out = this * x (sizes n). No allocation.
  void Multiply(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> out) const;
  /// The same on the blocks k with !skip[k] only; out's other entries are left alone.
  void Multiply(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> out,
                const std::vector<bool>& skip) const;
  /// out = the diagonal (size n). No allocation.
  void Diagonal(Eigen::Ref<Eigen::VectorXd> out) const;
  /// Sets every stored entry to zero.
  void SetZero();
  /// The dense n x n matrix (allocates; for tests and diagnostics).
  Eigen::MatrixXd ToDense() const;

 private:
  // out's rows of block k = block k times x's rows of it.
  void MultiplyBlock(int k, const Eigen::Ref<const Eigen::VectorXd>& x,
                     Eigen::Ref<Eigen::VectorXd> out) const;
  // Offset in values_ of entry (row, col) of a rows x cols sub-matrix inside one block
  // (checked); the block's size is the stride.
  int SubOffset(int row, int col, int rows, int cols) const;

  int n_ = 0;
  std::vector<VelocityBlock> blocks_;
  std::vector<int> offset_;    // per block: first entry in values_
  std::vector<int> block_of_;  // per row: its block
  std::vector<double> values_;
};

}  // namespace csim::multibody
