#include "engine/solver/pd_rows_direct_solve.h"

#include <algorithm>
#include <cmath>

#include "engine/solver/clamped_impulse_row.h"
#include "engine/solver/dense_ldlt.h"
#include "engine/solver/sap_solver.h"

namespace csim::solver {
namespace {

// Grows `v` to at least n entries (never shrinks: no allocation once warmed up).
template <class T>
void GrowTo(std::vector<T>* v, size_t n) {
  if (v->size() < n) v->resize(n);
}

// y = A x for A (m x m, column-major), x and y of m values: the column-major sums of
// Eigen's matrix-vector kernel in its order (y_i = 0 + A_i0 x_0 + A_i1 x_1 + ..., then + 0
// for the kernel's y += 1 * (A x) on a zeroed y), so the same bits, without its out-of-line
// call and blocking for a clique of a few velocities. The sums are kept in a local array
// (through y, which might alias A, every column would store them), with the size a
// compile-time constant N for the small cliques (as dense_ldlt.cc, unrolled), or the
// run-time m when N = 0.
template <int N>
void MultiplyBlock(const double* A, int m_dynamic, const double* x, double* y) {
  const int m = N > 0 ? N : m_dynamic;
  double sum[N > 0 ? N : 1];
  for (int i = 0; i < m; ++i) sum[i] = 0.0;
  for (int j = 0; j < m; ++j) {
    const double x_j = x[j];
    const double* A_j = A + static_cast<size_t>(j) * m;
    for (int i = 0; i < m; ++i) sum[i] = A_j[i] * x_j + sum[i];
  }
  for (int i = 0; i < m; ++i) y[i] = sum[i] + 0.0;
}

// The larger cliques: the same sums, stored in y column by column.
template <>
void MultiplyBlock<0>(const double* A, int m, const double* x, double* y) {
  for (int i = 0; i < m; ++i) y[i] = 0.0;
  for (int j = 0; j < m; ++j) {
    const double x_j = x[j];
    const double* A_j = A + static_cast<size_t>(j) * m;
    for (int i = 0; i < m; ++i) y[i] = A_j[i] * x_j + y[i];
  }
  for (int i = 0; i < m; ++i) y[i] = y[i] + 0.0;
}

void MultiplyBlock(const double* A, int m, const double* x, double* y) {
  switch (m) {
    case 1: return MultiplyBlock<1>(A, m, x, y);
    case 2: return MultiplyBlock<2>(A, m, x, y);
    case 3: return MultiplyBlock<3>(A, m, x, y);
    case 4: return MultiplyBlock<4>(A, m, x, y);
    case 5: return MultiplyBlock<5>(A, m, x, y);
    case 6: return MultiplyBlock<6>(A, m, x, y);
    case 7: return MultiplyBlock<7>(A, m, x, y);
    case 8: return MultiplyBlock<8>(A, m, x, y);
    case 9: return MultiplyBlock<9>(A, m, x, y);
    case 10: return MultiplyBlock<10>(A, m, x, y);
    case 11: return MultiplyBlock<11>(A, m, x, y);
    case 12: return MultiplyBlock<12>(A, m, x, y);
    default: return MultiplyBlock<0>(A, m, x, y);
  }
}

}  // namespace

bool SolvePdRowsDirectly(const ContactProblem& problem, const PdRow* rows, int num_rows,
                         const SapSolverParameters& parameters,
                         const Eigen::Ref<const Eigen::VectorXd>& v_guess,
                         PdRowsDirectScratch* scratch, SapSolverResult* result) {
  using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;
  PdRowsDirectScratch& s = *scratch;
  const int nv = problem.num_velocities(), K = num_rows;
  CSIM_CHECK(v_guess.size() == nv && problem.num_constraints() == 0 && K > 0);
  if (parameters.max_iterations < 1) return false;  // the Newton solve reports that

  // The touched cliques and their blocks' offsets.
  s.H_offset.assign(problem.num_cliques(), -1);
  s.touched.clear();
  size_t H_size = 0;
  for (int k = 0; k < K; ++k) {
    const int c = rows[k].clique;
    CSIM_CHECK(problem.has_A(c));
    if (s.H_offset[c] >= 0) continue;
    s.H_offset[c] = static_cast<int>(H_size);
    H_size += static_cast<size_t>(problem.clique_size(c)) * problem.clique_size(c);
    s.touched.push_back(c);
  }
  GrowTo(&s.H, H_size);
  GrowTo(&s.x, nv);
  GrowTo(&s.Av, nv);
  GrowTo(&s.A_v_star, nv);
  GrowTo(&s.jc, nv);
  GrowTo(&s.piece, K);
  GrowTo(&s.gamma, K);
  const double* v_star = problem.v_star().data();

  // H_c = A_c and x_c = A_c v*_c for each touched clique.
  for (int c : s.touched) {
    const int m = problem.clique_size(c), o = problem.clique_offset(c);
    Eigen::Map<Eigen::MatrixXd>(s.H.data() + s.H_offset[c], m, m) = problem.A(c);
    MultiplyBlock(problem.A(c).data(), m, v_star + o, s.A_v_star.data() + o);
    std::copy_n(s.A_v_star.data() + o, m, s.x.data() + o);
    std::fill_n(s.jc.data() + o, m, 0.0);
  }
  // Each row on its piece at the guess: inside, G on the diagonal and G v_hat on the right;
  // saturated, its bound gamma on the right (J = e_j^T, J^T gamma a scatter).
  for (int k = 0; k < K; ++k) {
    const PdRow& row = rows[k];
    const int c = row.clique, m = problem.clique_size(c), j = row.coordinate;
    const int i = problem.clique_offset(c) + j;
    const ClampedRowValues at_guess =
        EvaluateClampedRow(v_guess[i], row.v_hat, row.R, -row.impulse_limit, row.impulse_limit);
    s.piece[k] = static_cast<int>(at_guess.piece);
    if (at_guess.piece == ClampedRowPiece::kInside) {
      s.H[s.H_offset[c] + j + j * m] += at_guess.G;
      s.x[i] += at_guess.G * row.v_hat;
    } else {
      s.x[i] += at_guess.gamma;
    }
  }
  // v_c = H_c^{-1} x_c, clique by clique.
  for (int c : s.touched) {
    double* H = s.H.data() + s.H_offset[c];
    const int m = problem.clique_size(c);
    if (!DenseLdltInPlace(H, m)) return false;
    DenseLdltSolveInPlace(H, m, s.x.data() + problem.clique_offset(c));
  }

  // The rows at v: each must be on its assumed piece (else v is not the minimiser).
  double cost = 0.0;
  for (int k = 0; k < K; ++k) {
    const PdRow& row = rows[k];
    const int i = problem.clique_offset(row.clique) + row.coordinate;
    const ClampedRowValues at_v =
        EvaluateClampedRow(s.x[i], row.v_hat, row.R, -row.impulse_limit, row.impulse_limit);
    if (static_cast<int>(at_v.piece) != s.piece[k]) return false;
    cost += at_v.cost;
    s.gamma[k] = at_v.gamma;
    s.jc[i] += at_v.gamma;
  }

  // SAP eq. 26 and eq. 32 at v, D = diag(A)^{-1/2} (sap_stopping_criteria.h), and the cost.
  double g2 = 0.0, p2 = 0.0, j2 = 0.0;
  int num_velocities = 0;
  for (int c : s.touched) {
    const int m = problem.clique_size(c), o = problem.clique_offset(c);
    MultiplyBlock(problem.A(c).data(), m, s.x.data() + o, s.Av.data() + o);
    const double* D2 = problem.inverse_diagonal_of_A(c);
    for (int i = 0; i < m; ++i) {
      const double Av = s.Av[o + i], jc = s.jc[o + i];
      const double grad = Av - s.A_v_star[o + i] - jc;
      g2 += grad * grad * D2[i];
      p2 += Av * Av * D2[i];
      j2 += jc * jc * D2[i];
      cost += 0.5 * (s.x[o + i] - v_star[o + i]) * (Av - s.A_v_star[o + i]);
    }
    num_velocities += m;
  }
  const double g = std::sqrt(g2), scale = std::sqrt(std::max(p2, j2));
  if (!std::isfinite(g) || !std::isfinite(scale) || !std::isfinite(cost)) return false;
  if (!(g <= parameters.absolute_tolerance + parameters.relative_tolerance * scale)) return false;

  // The result, as SapSolver::Finish writes it.
  // (gamma and v_c, per row of the problem's own constraints: there are none to write.)
  result->v = problem.v_star();
  for (int c : s.touched) {
    const int m = problem.clique_size(c), o = problem.clique_offset(c);
    result->v.segment(o, m) = ConstVecMap(s.x.data() + o, m);
  }
  const int islands = static_cast<int>(s.touched.size());
  SapSolverStats& stats = result->stats;
  stats = SapSolverStats{};
  stats.termination = SapTermination::kOptimality;
  stats.iterations = 1;  // one Newton update (from any point on these pieces) per island
  stats.momentum_error = scale > 0.0 ? g / scale : (g == 0.0 ? 0.0 : HUGE_VAL);
  stats.cost = cost;
  stats.num_participating_cliques = islands;
  stats.num_participating_velocities = num_velocities;
  stats.num_islands = islands;
  stats.mean_island_iterations = 1.0;
  stats.smooth_updates = islands;  // on the pieces of the guess: no active-set change
  result->status.outcome = StepOutcome::kOk;
  result->status.reason.clear();
  return true;
}

}  // namespace csim::solver
