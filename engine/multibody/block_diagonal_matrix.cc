#include "engine/multibody/block_diagonal_matrix.h"

#include <utility>

#include "engine/common/check.h"

namespace csim::multibody {

BlockDiagonalMatrix::BlockDiagonalMatrix(std::vector<VelocityBlock> blocks)
    : blocks_(std::move(blocks)) {
  size_t size = 0;
  for (const VelocityBlock& b : blocks_) {
    CSIM_CHECK(b.start == n_ && b.size >= 0);
    offset_.push_back(static_cast<int>(size));
    block_of_.insert(block_of_.end(), b.size, static_cast<int>(offset_.size()) - 1);
    size += static_cast<size_t>(b.size) * b.size;
    n_ += b.size;
  }
  values_.assign(size, 0.0);
}

BlockDiagonalMatrix::BlockMap BlockDiagonalMatrix::block(int k) {
  const int m = blocks_[k].size;
  return {values_.data() + offset_[k], m, m, Eigen::OuterStride<>(m)};
}

BlockDiagonalMatrix::ConstBlockMap BlockDiagonalMatrix::block(int k) const {
  const int m = blocks_[k].size;
  return {values_.data() + offset_[k], m, m, Eigen::OuterStride<>(m)};
}

int BlockDiagonalMatrix::SubOffset(int row, int col, int rows, int cols) const {
  const int k = block_of_[row];
  const VelocityBlock& b = blocks_[k];
  CSIM_CHECK(block_of_[col] == k && row + rows <= b.start + b.size && col + cols <= b.start + b.size);
  return offset_[k] + (col - b.start) * b.size + (row - b.start);
}

BlockDiagonalMatrix::BlockMap BlockDiagonalMatrix::sub(int row, int col, int rows, int cols) {
  const int stride = blocks_[block_of_[row]].size;
  return {values_.data() + SubOffset(row, col, rows, cols), rows, cols, Eigen::OuterStride<>(stride)};
}

BlockDiagonalMatrix::ConstBlockMap BlockDiagonalMatrix::sub(int row, int col, int rows,
                                                            int cols) const {
  const int stride = blocks_[block_of_[row]].size;
  return {values_.data() + SubOffset(row, col, rows, cols), rows, cols, Eigen::OuterStride<>(stride)};
}

void BlockDiagonalMatrix::MultiplyBlock(int k, const Eigen::Ref<const Eigen::VectorXd>& x,
                                        Eigen::Ref<Eigen::VectorXd> out) const {
  const VelocityBlock& b = blocks_[k];
  if (b.size == 6) {  // a free body: fixed size, unrolled
    out.segment<6>(b.start).noalias() =
        Eigen::Map<const Eigen::Matrix<double, 6, 6>>(values_.data() + offset_[k]) *
        x.segment<6>(b.start);
  } else {
    out.segment(b.start, b.size).noalias() = block(k) * x.segment(b.start, b.size);
  }
}

void BlockDiagonalMatrix::Multiply(const Eigen::Ref<const Eigen::VectorXd>& x,
                                   Eigen::Ref<Eigen::VectorXd> out) const {
  CSIM_CHECK(x.size() == n_ && out.size() == n_);
  for (int k = 0; k < num_blocks(); ++k) MultiplyBlock(k, x, out);
}

void BlockDiagonalMatrix::Multiply(const Eigen::Ref<const Eigen::VectorXd>& x,
                                   Eigen::Ref<Eigen::VectorXd> out,
                                   const std::vector<bool>& skip) const {
  CSIM_CHECK(x.size() == n_ && out.size() == n_ && static_cast<int>(skip.size()) == num_blocks());
  for (int k = 0; k < num_blocks(); ++k)
    if (!skip[k]) MultiplyBlock(k, x, out);
}

void BlockDiagonalMatrix::Diagonal(Eigen::Ref<Eigen::VectorXd> out) const {
  CSIM_CHECK(out.size() == n_);
  for (int k = 0; k < num_blocks(); ++k) {
    const VelocityBlock& b = blocks_[k];
    if (b.size == 6) {  // a free body: a fixed-size copy, cheaper than a dynamic one
      out.segment<6>(b.start) =
          Eigen::Map<const Eigen::Matrix<double, 6, 6>>(values_.data() + offset_[k]).diagonal();
    } else {
      out.segment(b.start, b.size) = block(k).diagonal();
    }
  }
}

void BlockDiagonalMatrix::SetZero() { std::fill(values_.begin(), values_.end(), 0.0); }

Eigen::MatrixXd BlockDiagonalMatrix::ToDense() const {
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n_, n_);
  for (int k = 0; k < num_blocks(); ++k)
    dense.block(blocks_[k].start, blocks_[k].start, blocks_[k].size, blocks_[k].size) = block(k);
  return dense;
}

}  // namespace csim::multibody
