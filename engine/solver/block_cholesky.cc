#include "engine/solver/block_cholesky.h"

#include <algorithm>

#include "engine/common/check.h"

namespace csim::solver {
namespace {

using Map = Eigen::Map<Eigen::MatrixXd>;
using ConstMap = Eigen::Map<const Eigen::MatrixXd>;
using VecMap = Eigen::Map<Eigen::VectorXd>;

// Sorted union of a and b without `skip_a` and `skip_b`, into out (capacity kept).
void MergeWithout(const std::vector<int>& a, const std::vector<int>& b, int skip_a, int skip_b,
                  std::vector<int>* out) {
  out->clear();
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int x;
    if (j == b.size() || (i < a.size() && a[i] < b[j])) {
      x = a[i++];
    } else if (i == a.size() || b[j] < a[i]) {
      x = b[j++];
    } else {
      x = a[i++];
      ++j;
    }
    if (x != skip_a && x != skip_b) out->push_back(x);
  }
}

}  // namespace

bool BlockCholesky::Analyze(const std::vector<int>& block_size, const std::vector<int>& node_offset,
                            const std::vector<std::pair<int, int>>& edges) {
  CSIM_CHECK(block_size.size() == node_offset.size());
  const int n = static_cast<int>(block_size.size());
  edges_in_.clear();
  for (auto [a, b] : edges) {
    CSIM_CHECK(a != b && a >= 0 && b >= 0 && a < n && b < n);
    edges_in_.emplace_back(std::min(a, b), std::max(a, b));
  }
  std::sort(edges_in_.begin(), edges_in_.end());
  edges_in_.erase(std::unique(edges_in_.begin(), edges_in_.end()), edges_in_.end());
  if (num_analyses_ > 0 && block_size == size_ && node_offset == node_offset_ && edges_in_ == edges_)
    return false;  // same pattern: the symbolic analysis still holds
  size_ = block_size;
  node_offset_ = node_offset;
  all_six_ = std::all_of(size_.begin(), size_.end(), [](int m) { return m == 6; });
  edges_ = edges_in_;  // copy, not swap: both keep their capacity
  Order();
  LayOut();
  ++num_analyses_;
  return true;
}

void BlockCholesky::Order() {
  const int n = num_nodes();
  if (static_cast<int>(adjacency_.size()) < n) adjacency_.resize(n);
  for (int i = 0; i < n; ++i) adjacency_[i].clear();
  for (auto [a, b] : edges_) {
    adjacency_[a].push_back(b);
    adjacency_[b].push_back(a);
  }
  degree_.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    std::sort(adjacency_[i].begin(), adjacency_[i].end());
    degree_[i] = ScalarDegree(i);
  }
  eliminated_.assign(n, 0);
  order_.resize(n);
  position_.resize(n);
  column_start_.assign(1, 0);
  rows_.clear();
  for (int p = 0; p < n; ++p) {
    // Node of least scalar degree (sum of its neighbours' sizes), lowest index on ties.
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (!eliminated_[i] && (best < 0 || degree_[i] < degree_[best])) best = i;
    order_[p] = best;
    position_[best] = p;
    eliminated_[best] = 1;
    // Column p: the node itself, then its remaining neighbours (node ids for now).
    rows_.push_back(best);
    rows_.insert(rows_.end(), adjacency_[best].begin(), adjacency_[best].end());
    column_start_.push_back(static_cast<int>(rows_.size()));
    // Eliminating `best` connects its neighbours pairwise (fill).
    for (int u : adjacency_[best]) {
      MergeWithout(adjacency_[u], adjacency_[best], u, best, &merged_);
      adjacency_[u].swap(merged_);
      degree_[u] = ScalarDegree(u);
    }
    adjacency_[best].clear();
  }
  // Rows as positions, sorted within each column (the diagonal, smallest, stays first).
  for (int& r : rows_) r = position_[r];
  for (int p = 0; p < n; ++p)
    std::sort(rows_.begin() + column_start_[p], rows_.begin() + column_start_[p + 1]);
}

int BlockCholesky::ScalarDegree(int node) const {
  int degree = 0;
  for (int u : adjacency_[node]) degree += size_[u];
  return degree;
}

int BlockCholesky::StoredOffset(int r, int c) const {
  const auto first = rows_.begin() + column_start_[c];
  const auto last = rows_.begin() + column_start_[c + 1];
  const auto it = std::lower_bound(first, last, r);
  CSIM_CHECK(it != last && *it == r);
  return block_offset_[it - rows_.begin()];
}

void BlockCholesky::LayOut() {
  const int n = num_nodes();
  block_offset_.resize(rows_.size());
  column_value_start_.resize(n + 1);
  int offset = 0;
  for (int p = 0; p < n; ++p) {
    const int m = size_[order_[p]];
    column_value_start_[p] = offset;  // a column's blocks are contiguous
    for (int b = column_start_[p]; b < column_start_[p + 1]; ++b) {
      block_offset_[b] = offset;
      offset += size_[order_[rows_[b]]] * m;
    }
  }
  column_value_start_[n] = offset;
  values_.resize(offset);
  // Column p updates the trailing blocks (r_i, r_j), r_i >= r_j, of its sub-diagonal rows.
  update_start_.assign(1, 0);
  update_.clear();
  for (int p = 0; p < n; ++p) {
    for (int i = column_start_[p] + 1; i < column_start_[p + 1]; ++i)
      for (int j = column_start_[p] + 1; j <= i; ++j)
        update_.push_back({i, j, StoredOffset(rows_[i], rows_[j])});
    update_start_.push_back(static_cast<int>(update_.size()));
  }
}

BlockCholesky::Slot BlockCholesky::Find(int a, int b) const {
  const int pa = position_[a], pb = position_[b];
  Slot s;
  s.transposed = pa < pb;
  s.offset = s.transposed ? StoredOffset(pb, pa) : StoredOffset(pa, pb);
  return s;
}

void BlockCholesky::SetZero() { std::fill(values_.begin(), values_.end(), 0.0); }

bool BlockCholesky::FactorColumnSix(int p) {
  using Matrix6 = Eigen::Matrix<double, 6, 6>;
  using Map6 = Eigen::Map<Matrix6>;
  double* v = values_.data();
  const int first = column_start_[p], last = column_start_[p + 1];
  Map6 L_pp(v + block_offset_[first]);
  const Eigen::LLT<Matrix6> llt(L_pp);  // fixed size: on the stack
  if (llt.info() != Eigen::Success) return false;
  L_pp = llt.matrixLLT();
  const auto L = L_pp.triangularView<Eigen::Lower>();
  for (int b = first + 1; b < last; ++b) {
    Map6 L_rp(v + block_offset_[b]);
    L.transpose().solveInPlace<Eigen::OnTheRight>(L_rp);
  }
  for (int u = update_start_[p]; u < update_start_[p + 1]; ++u) {
    const auto& [i, j, target] = update_[u];
    Map6(v + target).noalias() -= Map6(v + block_offset_[i]) * Map6(v + block_offset_[j]).transpose();
  }
  return true;
}

bool BlockCholesky::FactorColumn(int p) {
  if (all_six_) return FactorColumnSix(p);
  double* v = values_.data();
  const int m = size_[order_[p]];
  const int first = column_start_[p], last = column_start_[p + 1];
  Map L_pp(v + block_offset_[first], m, m);
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(L_pp);  // in place: L_pp holds L afterwards
  if (llt.info() != Eigen::Success) return false;
  // L_rp = H_rp L_pp^{-T}.
  for (int b = first + 1; b < last; ++b) {
    Map L_rp(v + block_offset_[b], size_[order_[rows_[b]]], m);
    L_pp.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(L_rp);
  }
  // Schur complement: H_ij -= L_ip L_jp^T on the trailing blocks.
  for (int u = update_start_[p]; u < update_start_[p + 1]; ++u) {
    const auto& [i, j, target] = update_[u];
    const int mi = size_[order_[rows_[i]]], mj = size_[order_[rows_[j]]];
    const ConstMap L_ip(v + block_offset_[i], mi, m), L_jp(v + block_offset_[j], mj, m);
    Map(v + target, mi, mj).noalias() -= L_ip * L_jp.transpose();
  }
  return true;
}

bool BlockCholesky::Factor() {
  for (int p = 0; p < num_nodes(); ++p)
    if (!FactorColumn(p)) return false;
  return true;
}

void BlockCholesky::ForwardColumn(int p, double* x) const {
  const double* v = values_.data();
  const int c = order_[p], m = size_[c];
  const int first = column_start_[p], last = column_start_[p + 1];
  VecMap x_p(x + node_offset_[c], m);
  ConstMap(v + block_offset_[first], m, m).triangularView<Eigen::Lower>().solveInPlace(x_p);
  for (int b = first + 1; b < last; ++b) {
    const int r = order_[rows_[b]];
    VecMap(x + node_offset_[r], size_[r]).noalias() -=
        ConstMap(v + block_offset_[b], size_[r], m) * x_p;
  }
}

void BlockCholesky::BackwardColumn(int p, double* x) const {
  const double* v = values_.data();
  const int c = order_[p], m = size_[c];
  const int first = column_start_[p], last = column_start_[p + 1];
  VecMap x_p(x + node_offset_[c], m);
  for (int b = first + 1; b < last; ++b) {
    const int r = order_[rows_[b]];
    x_p.noalias() -= ConstMap(v + block_offset_[b], size_[r], m).transpose() *
                     VecMap(x + node_offset_[r], size_[r]);
  }
  ConstMap(v + block_offset_[first], m, m).transpose().triangularView<Eigen::Upper>().solveInPlace(x_p);
}

void BlockCholesky::Solve(double* x) const {
  const int n = num_nodes();
  for (int p = 0; p < n; ++p) ForwardColumn(p, x);       // L y = x
  for (int p = n - 1; p >= 0; --p) BackwardColumn(p, x);  // L^T x = y
}

void BlockCholesky::SetPartition(const std::vector<int>& part_of_node, int num_parts) {
  const int n = num_nodes();
  CSIM_CHECK(static_cast<int>(part_of_node.size()) >= n);
  // Counting sort of the positions by part, ascending within each part.
  part_start_.assign(num_parts + 1, 0);
  for (int p = 0; p < n; ++p) ++part_start_[part_of_node[order_[p]] + 1];
  for (int q = 0; q < num_parts; ++q) part_start_[q + 1] += part_start_[q];
  part_columns_.resize(n);
  for (int p = 0; p < n; ++p) part_columns_[part_start_[part_of_node[order_[p]]]++] = p;
  for (int q = num_parts; q > 0; --q) part_start_[q] = part_start_[q - 1];
  part_start_[0] = 0;
  // Every block of a column (fill included) stays in the column's part: parts exchange no
  // Schur updates, so a part factorized alone is exact.
  for (int p = 0; p < n; ++p)
    for (int b = column_start_[p] + 1; b < column_start_[p + 1]; ++b)
      CSIM_CHECK(part_of_node[order_[rows_[b]]] == part_of_node[order_[p]]);
}

void BlockCholesky::SetZeroPart(int part) {
  for (int q = part_start_[part]; q < part_start_[part + 1]; ++q) {
    const int p = part_columns_[q];
    std::fill(values_.begin() + column_value_start_[p], values_.begin() + column_value_start_[p + 1],
              0.0);
  }
}

bool BlockCholesky::FactorPart(int part) {
  for (int q = part_start_[part]; q < part_start_[part + 1]; ++q)
    if (!FactorColumn(part_columns_[q])) return false;
  return true;
}

void BlockCholesky::SolvePart(int part, double* x) const {
  for (int q = part_start_[part]; q < part_start_[part + 1]; ++q) ForwardColumn(part_columns_[q], x);
  for (int q = part_start_[part + 1] - 1; q >= part_start_[part]; --q)
    BackwardColumn(part_columns_[q], x);
}

}  // namespace csim::solver
