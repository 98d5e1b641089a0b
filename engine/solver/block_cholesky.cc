#include "engine/solver/block_cholesky.h"

#include <algorithm>
#include <functional>
#include <cmath>

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

// The 6 x 6 kernels (all_six_, and the free bodies of the theta method's free-motion solve).
// Eigen's fixed-size Matrix6 does not reach fixed-size code for these operations:
// LLT<Matrix6> runs the generic llt_inplace::unblocked over runtime-sized sub-blocks, a 6 x 6
// triangular solve the dynamic triangular_solve_vector (Eigen unrolls up to 8 coefficients),
// solveInPlace<OnTheRight> the blocked trsm with its packing, and the solves of the general
// path use dynamic maps (gemv). Here every loop has compile-time bounds and is unrolled
// (GCC -O3 otherwise keeps the triangular loops, whose trip counts depend on the outer
// index, as vectorized loops with prologues and epilogues, several times the instructions),
// and whole columns are Eigen fixed-size vectors where GCC left plain loops scalar.
//
// Each kernel forms its sums in the order of the Eigen code it replaces, so the results are
// the same bit for bit in the default x86-64 build (SSE2: two doubles per packet, no FMA):
// a sum of products is formed first, in the stated order, and then subtracted. Checked by
// the tests (against Eigen's LLT and against the general path) and on clutter_40
// trajectories. With other packet widths (-mavx, FMA) Eigen's order changes and the results
// differ from it in the last bits only.
#define CSIM_UNROLL_SIX _Pragma("GCC unroll 6")

namespace {

using Vector6Map = Eigen::Map<Eigen::Matrix<double, 6, 1>>;

// p[0] + ... + p[n - 1], n <= 5, in the order of Eigen's vectorized sum of a runtime-sized
// expression (two-double packets: lane sums, then the odd tail), which Eigen's backward
// substitution (row-major upper triangular_solve_vector) uses.
double PacketOrderSum(const double* p, int n) {
  if (n <= 3) return n == 1 ? p[0] : n == 2 ? p[0] + p[1] : (p[0] + p[1]) + p[2];
  const double lanes = (p[0] + p[2]) + (p[1] + p[3]);
  return n == 4 ? lanes : lanes + p[4];
}

// X = X L^{-T} for a 6 x 6 block X (L_rp = H_rp L_pp^{-T}), as Eigen's trsm (OnTheRight,
// panels of 4 columns): columns 0..3 subtract the earlier columns one by one; columns 4 and
// 5 first subtract the sum over columns 0..3 (the panel update, gebp), then column 4; each
// column is then multiplied by the reciprocal of its pivot (inverse_pivot).
void SolveRightTransposedSix(const double* L, const double* inverse_pivot, double* X) {
  auto x = [X](int j) { return Vector6Map(X + 6 * j); };
  auto l = [L](int i, int j) { return L[i + 6 * j]; };
  x(0) *= inverse_pivot[0];
  x(1) -= x(0) * l(1, 0);
  x(1) *= inverse_pivot[1];
  x(2) -= x(0) * l(2, 0);
  x(2) -= x(1) * l(2, 1);
  x(2) *= inverse_pivot[2];
  x(3) -= x(0) * l(3, 0);
  x(3) -= x(1) * l(3, 1);
  x(3) -= x(2) * l(3, 2);
  x(3) *= inverse_pivot[3];
  for (int j = 4; j < 6; ++j)
    x(j) -= ((x(0) * l(j, 0) + x(1) * l(j, 1)) + x(2) * l(j, 2)) + x(3) * l(j, 3);
  x(4) *= inverse_pivot[4];
  x(5) -= x(4) * l(5, 4);
  x(5) *= inverse_pivot[5];
}

// Rows kFirst..5 of y -= A x for a 6 x 6 block A, with x[k] at x[k * stride]: the sum over
// k first, in k order, then subtracted, as Eigen's fixed-size lazy product and its
// column-major gemv do.
template <int kFirst>
void SubtractColumnSix(const double* A, const double* x, int stride, double* y) {
  using Segment = Eigen::Matrix<double, 6 - kFirst, 1>;
  auto a = [A](int k) { return Eigen::Map<const Segment>(A + kFirst + 6 * k); };
  Eigen::Map<Segment>(y + kFirst) -=
      ((((a(0) * x[0] + a(1) * x[stride]) + a(2) * x[2 * stride]) + a(3) * x[3 * stride]) +
       a(4) * x[4 * stride]) +
      a(5) * x[5 * stride];
}

// Schur update T -= A B^T of 6 x 6 blocks, column c of T with row c of B. kLower: T is a
// diagonal block (A = B), of which only the lower triangle is read later (CholeskySix, the
// solves), so only that is updated, in whole packets from an even row (the entries (0, 1),
// (2, 3) and (4, 5) above the diagonal are updated too, and never read).
template <bool kLower>
void SchurUpdateSix(const double* A, const double* B, double* T) {
  if (kLower) {
    SubtractColumnSix<0>(A, B, 6, T);
    SubtractColumnSix<0>(A, B + 1, 6, T + 6);
    SubtractColumnSix<2>(A, B + 2, 6, T + 12);
    SubtractColumnSix<2>(A, B + 3, 6, T + 18);
    SubtractColumnSix<4>(A, B + 4, 6, T + 24);
    SubtractColumnSix<4>(A, B + 5, 6, T + 30);
  } else {
    CSIM_UNROLL_SIX
    for (int c = 0; c < 6; ++c) SubtractColumnSix<0>(A, B + c, 6, T + 6 * c);
  }
}

// y -= A^T x for a 6 x 6 block A: each entry the dot product of a column of A with x, as
// Eigen's row-major gemv forms it: a two-double packet accumulates the even and the odd
// terms (rows 0, 2, 4 and 1, 3, 5), then its two lanes are added.
void SubtractTransposedProductSix(const double* A, const double* x, double* y) {
  using Pair = Eigen::Matrix<double, 2, 1>;
  const Eigen::Map<const Pair> x01(x), x23(x + 2), x45(x + 4);
  CSIM_UNROLL_SIX
  for (int c = 0; c < 6; ++c) {
    const double* a = A + 6 * c;
    const Pair lanes = (Eigen::Map<const Pair>(a).cwiseProduct(x01) +
                        Eigen::Map<const Pair>(a + 2).cwiseProduct(x23)) +
                       Eigen::Map<const Pair>(a + 4).cwiseProduct(x45);
    y[c] -= lanes[0] + lanes[1];
  }
}

}  // namespace

bool CholeskySix(double* a) {
  // llt_inplace::unblocked: column k is the pivot minus the squared row k, then the column
  // below minus (row products summed over j), over the pivot.
  CSIM_UNROLL_SIX
  for (int k = 0; k < 6; ++k) {
    double pivot = a[k + 6 * k];
    if (k > 0) {
      double row_squared = a[k] * a[k];
      CSIM_UNROLL_SIX
      for (int j = 1; j < k; ++j) row_squared += a[k + 6 * j] * a[k + 6 * j];
      pivot -= row_squared;
    }
    if (pivot <= 0.0) return false;  // Eigen's test: a NaN pivot passes, as in LLT
    const double d = std::sqrt(pivot);
    a[k + 6 * k] = d;
    if (k > 0) {
      double sum[6];
      CSIM_UNROLL_SIX
      for (int i = k + 1; i < 6; ++i) sum[i] = a[i] * a[k];
      CSIM_UNROLL_SIX
      for (int j = 1; j < k; ++j) {
        CSIM_UNROLL_SIX
        for (int i = k + 1; i < 6; ++i) sum[i] += a[i + 6 * j] * a[k + 6 * j];
      }
      CSIM_UNROLL_SIX
      for (int i = k + 1; i < 6; ++i) a[i + 6 * k] -= sum[i];
    }
    CSIM_UNROLL_SIX
    for (int i = k + 1; i < 6; ++i) a[i + 6 * k] /= d;
  }
  return true;
}

void SolveLowerSix(const double* L, double* x) {
  // Column-oriented, as Eigen's column-major lower triangular_solve_vector, which skips a
  // zero entry (the same values, unless L holds an inf or NaN).
  CSIM_UNROLL_SIX
  for (int j = 0; j < 6; ++j) {
    if (x[j] == 0.0) continue;
    x[j] /= L[j + 6 * j];
    CSIM_UNROLL_SIX
    for (int i = j + 1; i < 6; ++i) x[i] -= L[i + 6 * j] * x[j];
  }
}

void SolveLowerTransposedSix(const double* L, double* x) {
  // Row by row from the last, as Eigen's row-major upper triangular_solve_vector: row i of
  // L^T (column i of L below the diagonal) times the solved entries, summed as Eigen sums.
  CSIM_UNROLL_SIX
  for (int i = 5; i >= 0; --i) {
    if (i < 5) {
      double products[5];
      CSIM_UNROLL_SIX
      for (int k = i + 1; k < 6; ++k) products[k - i - 1] = L[k + 6 * i] * x[k];
      x[i] -= PacketOrderSum(products, 5 - i);
    }
    if (x[i] != 0.0) x[i] /= L[i + 6 * i];
  }
}

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
  // Candidates (degree, node) in a min-heap: the least pair is the node of least scalar
  // degree (sum of its neighbours' sizes), lowest index on ties. A node whose degree changes
  // gets a new entry; entries that no longer match are dropped when they surface. A scan
  // of every node per elimination would make the ordering quadratic in the nodes of the
  // whole problem.
  heap_.clear();
  for (int i = 0; i < n; ++i) heap_.emplace_back(degree_[i], i);
  const std::greater<std::pair<int, int>> later;
  std::make_heap(heap_.begin(), heap_.end(), later);
  for (int p = 0; p < n; ++p) {
    int best = -1;
    while (best < 0) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const auto [degree, node] = heap_.back();
      heap_.pop_back();
      if (!eliminated_[node] && degree == degree_[node]) best = node;
    }
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
      heap_.emplace_back(degree_[u], u);
      std::push_heap(heap_.begin(), heap_.end(), later);
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
  double* v = values_.data();
  const int first = column_start_[p], last = column_start_[p + 1];
  double* L_pp = v + block_offset_[first];
  if (!CholeskySix(L_pp)) return false;
  // L_rp = H_rp L_pp^{-T}; one reciprocal per pivot for all the column's blocks, as in
  // Eigen's trsm.
  std::array<double, 6> inverse_pivot;
  CSIM_UNROLL_SIX
  for (int j = 0; j < 6; ++j) inverse_pivot[j] = 1.0 / L_pp[j + 6 * j];
  for (int b = first + 1; b < last; ++b)
    SolveRightTransposedSix(L_pp, inverse_pivot.data(), v + block_offset_[b]);
  for (int u = update_start_[p]; u < update_start_[p + 1]; ++u) {
    const auto& [i, j, target] = update_[u];
    if (i == j) {  // the target is the diagonal block of row i
      SchurUpdateSix<true>(v + block_offset_[i], v + block_offset_[i], v + target);
    } else {
      SchurUpdateSix<false>(v + block_offset_[i], v + block_offset_[j], v + target);
    }
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

void BlockCholesky::ForwardColumnSix(int p, double* x) const {
  const double* v = values_.data();
  const int first = column_start_[p], last = column_start_[p + 1];
  double* x_p = x + node_offset_[order_[p]];
  SolveLowerSix(v + block_offset_[first], x_p);
  for (int b = first + 1; b < last; ++b)
    SubtractColumnSix<0>(v + block_offset_[b], x_p, 1, x + node_offset_[order_[rows_[b]]]);
}

void BlockCholesky::BackwardColumnSix(int p, double* x) const {
  const double* v = values_.data();
  const int first = column_start_[p], last = column_start_[p + 1];
  double* x_p = x + node_offset_[order_[p]];
  for (int b = first + 1; b < last; ++b)
    SubtractTransposedProductSix(v + block_offset_[b], x + node_offset_[order_[rows_[b]]], x_p);
  SolveLowerTransposedSix(v + block_offset_[first], x_p);
}

void BlockCholesky::ForwardColumn(int p, double* x) const {
  if (all_six_) return ForwardColumnSix(p, x);
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
  if (all_six_) return BackwardColumnSix(p, x);
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
