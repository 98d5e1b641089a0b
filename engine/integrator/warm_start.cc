#include "engine/integrator/warm_start.h"

#include <algorithm>

#include "engine/common/check.h"

namespace csim::integrator {
namespace {

// x^T A x for the m x m block A and x = (a - b) - (c - d), or x = a - b when c is null:
// plain loops, so that nothing is allocated for the dynamic-size block.
double QuadraticForm(const Eigen::Map<const Eigen::MatrixXd>& A, const double* a,
                     const double* b, const double* c, const double* d, int m) {
  // x = (a - b) - (c - d) when c != nullptr, else x = a - b.
  double sum = 0.0;
  for (int j = 0; j < m; ++j) {
    const double xj = (a[j] - b[j]) - (c != nullptr ? c[j] - d[j] : 0.0);
    double column = 0.0;
    for (int i = 0; i < m; ++i) {
      const double xi = (a[i] - b[i]) - (c != nullptr ? c[i] - d[i] : 0.0);
      column += A(i, j) * xi;
    }
    sum += column * xj;
  }
  return sum;
}

}  // namespace

void WarmStartHistory::Push(const Eigen::VectorXd& v0) {
  // v_-2 <- v_-1, v_-1 <- v0; swapping keeps both buffers' capacity.
  v_2_.swap(v_1_);
  v_1_ = v0;
  count_ = std::min(count_ + 1, 2);
}

void WarmStartHistory::CalcGuess(const solver::ContactProblem& problem,
                                 const Eigen::VectorXd& v0, bool extrapolate, double tolerance,
                                 Eigen::VectorXd* guess) const {
  *guess = v0;
  if (!extrapolate || count_ < 2) return;
  CSIM_CHECK(v_1_.size() == v0.size() && v_2_.size() == v0.size());
  CSIM_CHECK(tolerance >= 0.0);
  const double* now = v0.data();
  const double* last = v_1_.data();
  const double* before = v_2_.data();
  for (int c = 0; c < problem.num_cliques(); ++c) {
    const int o = problem.clique_offset(c), m = problem.clique_size(c);
    const Eigen::Map<const Eigen::MatrixXd> A = problem.A(c);
    // ||d0||^2 and ||d0 - d1||^2 in the A_c norm.
    const double increment = QuadraticForm(A, now + o, last + o, nullptr, nullptr, m);
    const double change = QuadraticForm(A, now + o, last + o, last + o, before + o, m);
    if (change <= tolerance * tolerance * increment)
      guess->segment(o, m) = 2.0 * v0.segment(o, m) - v_1_.segment(o, m);  // v0 + (v0 - v_-1)
  }
}

}  // namespace csim::integrator
