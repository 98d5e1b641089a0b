#include <random>

#include <catch2/catch.hpp>

#include "engine/multibody/block_diagonal_matrix.h"

namespace csim::multibody {
namespace {

// Blocks of a forest: a free body (6), a 2-link arm (2), a ball-jointed body (3), a slider (1).
std::vector<VelocityBlock> ForestBlocks() { return {{0, 6}, {6, 2}, {8, 3}, {11, 1}}; }

TEST_CASE("block-diagonal matrix behaves as the dense matrix it stands for", "[multibody]") {
  BlockDiagonalMatrix M(ForestBlocks());
  REQUIRE(M.rows() == 12);
  REQUIRE(M.num_blocks() == 4);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // Fill every block through sub() in global indices, entry by entry, and mirror it in a
  // dense matrix written independently.
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(12, 12);
  for (int k = 0; k < M.num_blocks(); ++k) {
    const VelocityBlock& b = M.range(k);
    for (int j = b.start; j < b.start + b.size; ++j)
      for (int i = b.start; i < b.start + b.size; ++i) {
        const double x = u(rng);
        M.sub(i, j, 1, 1)(0, 0) = x;
        dense(i, j) = x;
      }
  }
  CHECK(M.ToDense() == dense);
  // A rectangular sub-block inside a block maps the right entries.
  CHECK(M.sub(7, 6, 1, 2) == dense.block(7, 6, 1, 2));
  CHECK(M.sub(8, 9, 3, 2) == dense.block(8, 9, 3, 2));
  CHECK(M.block(2) == dense.block(8, 8, 3, 3));
  Eigen::VectorXd x(12), y(12), d(12);
  for (int i = 0; i < 12; ++i) x[i] = u(rng);
  M.Multiply(x, y);
  CHECK((y - dense * x).norm() <= 1e-14 * (dense * x).norm());
  M.Diagonal(d);
  CHECK(d == dense.diagonal());
  M.SetZero();
  CHECK(M.ToDense().isZero(0.0));
}

TEST_CASE("block-diagonal matrix stores only its blocks", "[multibody]") {
  // 400 free bodies: 400 * 36 stored values instead of 2400^2; ToDense shows the zeros.
  std::vector<VelocityBlock> blocks;
  for (int i = 0; i < 400; ++i) blocks.push_back({6 * i, 6});
  BlockDiagonalMatrix M(blocks);
  for (int k = 0; k < M.num_blocks(); ++k) M.block(k).setIdentity();
  const Eigen::MatrixXd dense = M.ToDense();
  CHECK(dense.isIdentity(0.0));
}

}  // namespace
}  // namespace csim::multibody
