// BlockCholesky against a dense reference: random block-sparse SPD matrices on random node
// graphs (mixed block sizes, fill-in), reuse of the symbolic analysis, no allocation in the
// numeric phase; parts (independent groups of nodes) factorized and solved one by one give
// the whole factorization's result bit for bit. Most cases run with mixed block sizes and
// with all blocks 6 x 6 (the fixed-size path of free bodies), whose kernels are also
// checked against Eigen's LLT directly.

#include "engine/solver/block_cholesky.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>

#include "tests/support/allocation_counter.h"

namespace csim::solver {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

struct RandomPattern {
  std::vector<int> size, offset;
  std::vector<std::pair<int, int>> edges;
  int n = 0;  // scalar size
};

// Block sizes 1..6 at random, or all 6 (the fixed-size path of free bodies).
RandomPattern MakePattern(int nodes, int num_edges, std::mt19937& rng, bool all_six = false) {
  RandomPattern p;
  std::uniform_int_distribution<int> size(all_six ? 6 : 1, 6), node(0, nodes - 1);
  for (int i = 0; i < nodes; ++i) {
    p.offset.push_back(p.n);
    p.size.push_back(size(rng));
    p.n += p.size.back();
  }
  while (static_cast<int>(p.edges.size()) < num_edges) {
    const int a = node(rng), b = node(rng);
    if (a != b) p.edges.emplace_back(a, b);  // duplicates and both orders on purpose
  }
  return p;
}

// A dense SPD matrix with the block pattern of p: diagonally dominant blocks.
MatrixXd RandomBlockSpd(const RandomPattern& p, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  MatrixXd H = MatrixXd::Zero(p.n, p.n);
  for (auto [a, b] : p.edges)
    for (int i = 0; i < p.size[a]; ++i)
      for (int j = 0; j < p.size[b]; ++j) {
        const double x = u(rng);
        H(p.offset[a] + i, p.offset[b] + j) = x;
        H(p.offset[b] + j, p.offset[a] + i) = x;
      }
  for (int i = 0; i < p.n; ++i) H(i, i) = H.row(i).cwiseAbs().sum() + 1.0 + u(rng);
  return H;
}

// Copies H's pattern blocks into the factor's storage.
void Load(const MatrixXd& H, const RandomPattern& p, BlockCholesky* L) {
  L->SetZero();
  auto put = [&](int a, int b) {
    const BlockCholesky::Slot s = L->Find(a, b);
    const MatrixXd block = H.block(p.offset[a], p.offset[b], p.size[a], p.size[b]);
    if (s.transposed) {
      Eigen::Map<MatrixXd>(L->data() + s.offset, p.size[b], p.size[a]) = block.transpose();
    } else {
      Eigen::Map<MatrixXd>(L->data() + s.offset, p.size[a], p.size[b]) = block;
    }
  };
  std::set<std::pair<int, int>> done;
  for (int i = 0; i < static_cast<int>(p.size.size()); ++i) put(i, i);
  for (auto [a, b] : p.edges)
    if (done.insert({std::min(a, b), std::max(a, b)}).second) put(a, b);
}

// Analyzes p, loads H, factorizes the whole matrix (REQUIREd) and returns H^{-1} b.
VectorXd FactorAndSolve(const MatrixXd& H, const RandomPattern& p, const VectorXd& b,
                        BlockCholesky* L) {
  L->Analyze(p.size, p.offset, p.edges);
  Load(H, p, L);
  REQUIRE(L->Factor());
  VectorXd x = b;
  L->Solve(x.data());
  return x;
}

TEST_CASE("block Cholesky solves like a dense Cholesky", "[solver][block_cholesky]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int nodes = 1 + trial % 25;
    const bool all_six = trial % 2 == 1;
    const RandomPattern p = MakePattern(nodes, nodes > 1 ? trial % (3 * nodes) : 0, rng, all_six);
    const MatrixXd H = RandomBlockSpd(p, rng);
    BlockCholesky L;
    REQUIRE(L.Analyze(p.size, p.offset, p.edges));
    Load(H, p, &L);
    REQUIRE(L.Factor());
    const VectorXd b = VectorXd::Random(p.n);
    VectorXd x = b;
    L.Solve(x.data());
    const VectorXd x_ref = H.llt().solve(b);
    INFO("trial " << trial << ", " << nodes << " nodes, " << p.edges.size() << " edges");
    CHECK((x - x_ref).norm() <= 1e-12 * x_ref.norm());
  }
}

TEST_CASE("block Cholesky reuses its analysis while the pattern holds", "[solver][block_cholesky]") {
  std::mt19937 rng(3);
  RandomPattern p = MakePattern(12, 20, rng);
  BlockCholesky L;
  CHECK(L.Analyze(p.size, p.offset, p.edges));
  std::reverse(p.edges.begin(), p.edges.end());  // same graph, other order
  CHECK_FALSE(L.Analyze(p.size, p.offset, p.edges));
  CHECK(L.num_analyses() == 1);
  p.edges.emplace_back(0, 11);
  p.edges.emplace_back(5, 7);
  CHECK(L.Analyze(p.size, p.offset, p.edges));
  CHECK(L.num_analyses() == 2);
}

TEST_CASE("block Cholesky rejects a matrix that is not positive definite", "[solver][block_cholesky]") {
  std::mt19937 rng(5);
  for (const bool all_six : {false, true}) {
    const RandomPattern p = MakePattern(6, 8, rng, all_six);
    MatrixXd H = RandomBlockSpd(p, rng);
    H(p.n - 1, p.n - 1) = -1.0;
    BlockCholesky L;
    L.Analyze(p.size, p.offset, p.edges);
    Load(H, p, &L);
    INFO("all six " << all_six);
    CHECK_FALSE(L.Factor());
  }
}

// The fixed-size kernels form their sums in the order of the Eigen code of the general path
// (block_cholesky.cc); with two-double packets and no FMA (the default x86-64 build) the
// results are the same bit for bit, otherwise to round-off.
#if defined(EIGEN_VECTORIZE_SSE2) && !defined(EIGEN_VECTORIZE_AVX) && !defined(EIGEN_VECTORIZE_FMA)
constexpr double kSixTolerance = 0.0;
#else
constexpr double kSixTolerance = 1e-14;
#endif

TEST_CASE("block Cholesky: the 6 x 6 path gives the general path's result", "[solver][block_cholesky]") {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 30; ++trial) {
    const int nodes = 2 + trial;
    const RandomPattern six = MakePattern(nodes, trial % 2 == 0 ? nodes : 3 * nodes, rng, true);
    const MatrixXd H = RandomBlockSpd(six, rng);
    // The same matrix with one more node of one row, coupled to nothing: the general path,
    // with the same elimination order of the other nodes (it is taken whenever it has the
    // least degree, 0, without changing the others' degrees).
    RandomPattern mixed = six;
    mixed.size.push_back(1);
    mixed.offset.push_back(six.n);
    mixed.n = six.n + 1;
    MatrixXd H_mixed = MatrixXd::Zero(mixed.n, mixed.n);
    H_mixed.topLeftCorner(six.n, six.n) = H;
    H_mixed(six.n, six.n) = 2.0;
    const VectorXd b = VectorXd::Random(six.n);
    BlockCholesky L_six, L_mixed;
    const VectorXd x_six = FactorAndSolve(H, six, b, &L_six);
    VectorXd b_mixed(mixed.n);
    b_mixed << b, 1.0;
    const VectorXd x_mixed = FactorAndSolve(H_mixed, mixed, b_mixed, &L_mixed);
    INFO("trial " << trial << ", " << nodes << " nodes, " << six.edges.size() << " edges");
    CHECK((x_six - x_mixed.head(six.n)).norm() <= kSixTolerance * x_six.norm());
  }
}

TEST_CASE("6 x 6 kernels factorize and solve like Eigen's LLT", "[solver][block_cholesky]") {
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  using Vector6 = Eigen::Matrix<double, 6, 1>;
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 50; ++trial) {
    Matrix6 R;
    for (int i = 0; i < 36; ++i) R.data()[i] = u(rng);
    // Condition numbers up to ~1e6: a small diagonal shift on an often near-singular R R^T.
    const Matrix6 H = R * R.transpose() + std::pow(10.0, -(trial % 7)) * Matrix6::Identity();
    // The dynamic LLT is what the theta method used; LLT<Matrix6> the previous 6 x 6 path.
    const Eigen::LLT<MatrixXd> llt(H);
    REQUIRE(llt.info() == Eigen::Success);
    Matrix6 A = H;
    REQUIRE(CholeskySix(A.data()));
    const Matrix6 L_ref = MatrixXd(llt.matrixL());
    const Matrix6 L_ref6 = Eigen::LLT<Matrix6>(H).matrixL();
    const Matrix6 L = A.triangularView<Eigen::Lower>();
    INFO("trial " << trial);
    CHECK((L - L_ref).norm() <= kSixTolerance * L_ref.norm());
    CHECK((L - L_ref6).norm() <= kSixTolerance * L_ref.norm());
    CHECK((L * L.transpose() - H).norm() <= 1e-14 * H.norm());
    CHECK(A.triangularView<Eigen::StrictlyUpper>().toDenseMatrix() ==
          H.triangularView<Eigen::StrictlyUpper>().toDenseMatrix());  // not touched
    Vector6 b;
    for (int i = 0; i < 6; ++i) b[i] = u(rng);
    Vector6 x = b;
    SolveLowerSix(A.data(), x.data());
    SolveLowerTransposedSix(A.data(), x.data());
    VectorXd x_ref = b;
    llt.solveInPlace(x_ref);
    CHECK((x - x_ref).norm() <= kSixTolerance * x_ref.norm());
    CHECK((H * x - b).norm() <= 1e-12 * H.norm() * x.norm());  // backward error
  }
  // A non-positive pivot at every position k is reported, as by Eigen's LLT.
  for (int k = 0; k < 6; ++k) {
    Matrix6 H = Matrix6::Identity();
    H(k, k) = k % 2 == 0 ? 0.0 : -1.0;
    Matrix6 A = H;
    INFO("pivot " << k);
    CHECK(Eigen::LLT<Matrix6>(H).info() != Eigen::Success);
    CHECK_FALSE(CholeskySix(A.data()));
  }
}

// Nodes in `parts` groups (node i in group i % parts), edges only within a group.
RandomPattern MakeGroupedPattern(int nodes, int parts, int num_edges, std::mt19937& rng,
                                 bool all_six, std::vector<int>* part_of_node) {
  RandomPattern p = MakePattern(nodes, 0, rng, all_six);
  std::uniform_int_distribution<int> node(0, nodes - 1);
  while (static_cast<int>(p.edges.size()) < num_edges) {
    const int a = node(rng), b = node(rng);
    if (a != b && a % parts == b % parts) p.edges.emplace_back(a, b);
  }
  part_of_node->resize(nodes);
  for (int i = 0; i < nodes; ++i) (*part_of_node)[i] = i % parts;
  return p;
}

TEST_CASE("block Cholesky parts give the whole factorization bit for bit",
          "[solver][block_cholesky]") {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 20; ++trial) {
    const int parts = 1 + trial % 5, nodes = 2 * parts + trial * 2;  // >= 2 nodes per part
    std::vector<int> part_of_node;
    const RandomPattern p =
        MakeGroupedPattern(nodes, parts, nodes + trial, rng, trial % 2 == 1, &part_of_node);
    const MatrixXd H = RandomBlockSpd(p, rng);
    const VectorXd b = VectorXd::Random(p.n);
    BlockCholesky whole, split;
    const VectorXd x_whole = FactorAndSolve(H, p, b, &whole);
    const VectorXd x_ref = H.llt().solve(b);
    CHECK((x_whole - x_ref).norm() <= 1e-12 * x_ref.norm());
    split.Analyze(p.size, p.offset, p.edges);
    split.SetPartition(part_of_node, parts);
    Load(H, p, &split);
    VectorXd x_split = b;
    for (int q = parts - 1; q >= 0; --q) {  // any order: parts are independent
      REQUIRE(split.FactorPart(q));
      split.SolvePart(q, x_split.data());
    }
    INFO("trial " << trial << ", " << parts << " parts, " << nodes << " nodes");
    CHECK(x_split == x_whole);
    // SetZeroPart clears its part's storage only: part 0 then fails to factorize, the
    // others still solve to the same values.
    Load(H, p, &split);
    split.SetZeroPart(0);
    CHECK_FALSE(split.FactorPart(0));
    VectorXd x_rest = b;
    for (int q = 1; q < parts; ++q) {
      REQUIRE(split.FactorPart(q));
      split.SolvePart(q, x_rest.data());
    }
    for (int i = 0; i < nodes; ++i)
      if (part_of_node[i] != 0)
        CHECK(x_rest.segment(p.offset[i], p.size[i]) == x_whole.segment(p.offset[i], p.size[i]));
  }
}

TEST_CASE("block Cholesky factor and solve do not allocate", "[solver][block_cholesky][allocation]") {
  std::mt19937 rng(11);
  for (const bool all_six : {false, true}) {
    const RandomPattern p = MakePattern(200, 500, rng, all_six);  // large: ~700 or 1200 unknowns
    const MatrixXd H = RandomBlockSpd(p, rng);
    BlockCholesky L;
    L.Analyze(p.size, p.offset, p.edges);
    Load(H, p, &L);
    VectorXd x = VectorXd::Random(p.n);
    const std::size_t before = testing::AllocationCount();
    const bool reused = !L.Analyze(p.size, p.offset, p.edges);
    const bool ok = L.Factor();
    L.Solve(x.data());
    // Counted before INFO: Catch's message stack allocates on its first use in a process.
    const std::size_t allocations = testing::AllocationCount() - before;
    INFO("all six " << all_six);
    CHECK(allocations == 0);
    CHECK(reused);
    CHECK(ok);
  }
}

TEST_CASE("block Cholesky parts factor and solve do not allocate", "[solver][block_cholesky][allocation]") {
  std::mt19937 rng(19);
  for (const bool all_six : {false, true}) {
    std::vector<int> part_of_node;
    const int parts = 4;
    const RandomPattern p = MakeGroupedPattern(60, parts, 120, rng, all_six, &part_of_node);
    const MatrixXd H = RandomBlockSpd(p, rng);
    BlockCholesky L;
    L.Analyze(p.size, p.offset, p.edges);
    L.SetPartition(part_of_node, parts);
    Load(H, p, &L);
    VectorXd x = VectorXd::Random(p.n);
    bool ok = true;
    const std::size_t before = testing::AllocationCount();
    L.SetPartition(part_of_node, parts);
    for (int q = 0; q < parts; ++q) {
      ok = L.FactorPart(q) && ok;
      L.SolvePart(q, x.data());
    }
    const std::size_t allocations = testing::AllocationCount() - before;  // before INFO
    INFO("all six " << all_six);
    CHECK(allocations == 0);
    CHECK(ok);
  }
}

}  // namespace
}  // namespace csim::solver
