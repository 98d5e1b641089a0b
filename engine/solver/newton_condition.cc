#include "engine/solver/newton_condition.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/solver/sap_products.h"

namespace csim::solver {
namespace {

// Copies the island's entries between a reduced vector (its cliques at their reduced
// offsets) and a contiguous one (its cliques in island order), in either direction.
template <bool kToReduced>
void Copy(const SapWorkspace& ws, int i, const double* from, double* to) {
  const Islands& is = ws.islands;
  int o = 0;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q) {
    const int c = is.cliques[q], m = ws.problem->clique_size(c), r = ws.reduced_offset[c];
    if (kToReduced) {
      std::copy_n(from + o, m, to + r);
    } else {
      std::copy_n(from + r, m, to + o);
    }
    o += m;
  }
}

}  // namespace

double IslandCondition::condition_number() const {
  return lambda_min > 0.0 ? lambda_max / lambda_min : std::numeric_limits<double>::quiet_NaN();
}

void MultiplyIslandNewtonMatrix(const SapWorkspace& ws, int i, const double* x, double* y,
                                double* rows, double* G_rows) {
  const ContactProblem& p = *ws.problem;
  const Islands& is = ws.islands;
  for (int q = is.clique_start[i]; q < is.clique_start[i + 1]; ++q)
    MultiplyByA(ws, is.cliques[q], x, y);
  IslandConstraintVelocities(ws, i, x, rows);
  for (int q = is.constraint_start[i]; q < is.constraint_start[i + 1]; ++q) {
    const int k = is.constraints[q];
    const ConstraintEntry& e = p.entry(k);
    const int n = e.num_rows;
    const double* G = ws.G.data() + ws.G_offset[k];  // n x n, column-major
    for (int r = 0; r < n; ++r) {
      double sum = 0.0;
      for (int c = 0; c < n; ++c) sum += G[r + c * n] * rows[e.row_offset + c];
      G_rows[e.row_offset + r] = sum;
    }
  }
  IslandAddJTransposeTimes(ws, i, G_rows, y);
}

void NewtonConditionEstimator::Reserve(const SapWorkspace& ws, int num_threads) {
  for (std::vector<double>* v : {&x_, &y_})
    if (v->size() < static_cast<size_t>(ws.num_reduced)) v->resize(ws.num_reduced);
  for (std::vector<double>* v : {&rows_, &G_rows_})
    if (v->size() < static_cast<size_t>(ws.num_rows)) v->resize(ws.num_rows);
  if (lanczos_.size() < static_cast<size_t>(num_threads)) lanczos_.resize(num_threads);
  int largest = 0;
  for (int i = 0; i < ws.islands.num_islands; ++i)
    largest = std::max(largest, ws.islands.num_velocities[i]);
  for (LanczosScratch& s : lanczos_) s.Reserve(largest, parameters_.max_iterations);
}

IslandCondition NewtonConditionEstimator::EstimateIsland(SapWorkspace& ws, int i, int thread,
                                                         SapThreadScratch& scratch) {
  IslandCondition result;
  // H at the island's v, factorized as the Newton loop's next direction would have it.
  ws.newton.AssembleIsland(i, ws.G.data(), ws.G_offset, &scratch.newton);
  if (!ws.newton.FactorIsland(i)) return result;
  const int n = ws.islands.num_velocities[i];
  LanczosScratch& lanczos = lanczos_[thread];
  auto multiply = [&](const double* q, double* w) {
    Copy<true>(ws, i, q, x_.data());
    MultiplyIslandNewtonMatrix(ws, i, x_.data(), y_.data(), rows_.data(), G_rows_.data());
    Copy<false>(ws, i, y_.data(), w);
  };
  auto solve = [&](const double* q, double* w) {
    Copy<true>(ws, i, q, x_.data());
    ws.newton.SolveIsland(i, x_.data(), &scratch.newton);
    Copy<false>(ws, i, x_.data(), w);
  };
  const LanczosResult top = LanczosLargestEigenvalue(n, multiply, parameters_, &lanczos);
  const LanczosResult inverse = LanczosLargestEigenvalue(n, solve, parameters_, &lanczos);
  result.lambda_max = top.value;
  result.lambda_min = inverse.value > 0.0 ? 1.0 / inverse.value : 0.0;
  result.iterations = top.iterations + inverse.iterations;
  return result;
}

}  // namespace csim::solver
