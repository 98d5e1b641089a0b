// csim_factor_bench: csim's block Cholesky (engine/solver/block_cholesky.h) against
// SuiteSparse CHOLMOD, supernodal and simplicial, on the Newton systems the clutter really
// poses: the measurement that chose the factorization of H (results/factorization.md).
//
// What it does: steps a clutter scene (tools/make_clutter.py, as csim_bench) with csim and,
// every --every steps after --skip seconds, takes the largest island of the step's contact
// problem and its Newton matrix at the step's solution,
//   H = A + sum_k J_k^T G_k J_k   (docs/design/sap-problem.md §2; G_k = d^2 ell_k / d v_c^2 at v),
// the matrix the solver factorizes in its last iteration. Each such H is then factorized
// --repeat times by each method, numerically only (each method's symbolic analysis is done
// once per matrix and timed apart, as the solver reuses it while the pattern holds), and
// solved once; the median time per method is kept. Assembly is not timed: csim's solver
// assembles straight into its block storage, CHOLMOD would need a compressed-column copy,
// so leaving it out favours CHOLMOD.
//
// Both solve H x = H x_true for a random x_true; the relative error of each is printed, and
// the program fails (exit status 1) when one exceeds 1e-8, so a wrong factorization cannot
// pass as a fast one.
//
//   build/bench/csim_factor_bench -n 160 --walls with --dt 2e-3 --duration 2

#include <dlfcn.h>
#include <suitesparse/cholmod.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Dense>

#include "bench/bench_options.h"
#include "bench/clutter_scene.h"
#include "bench/csim_runner.h"
#include "bench/step_series.h"
#include "engine/io/scene_loader.h"
#include "engine/solver/block_cholesky.h"
#include "engine/solver/islands.h"

extern "C" void dgemm_();  // only its address: which BLAS library CHOLMOD runs on

namespace csim::bench {
namespace {

using Clock = std::chrono::steady_clock;

double MicrosecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// The Newton matrix of one island, by blocks: node i is a clique (a tree's velocities).
struct NewtonMatrix {
  std::vector<int> size, offset;               // per node
  std::vector<std::pair<int, int>> edges;      // node pairs coupled by a constraint
  std::map<std::pair<int, int>, Eigen::MatrixXd> blocks;  // (i, j), i >= j: H_ij
  int n = 0;                                   // velocities

  Eigen::MatrixXd& Block(int i, int j) {
    auto [it, fresh] = blocks.try_emplace({i, j});
    if (fresh) it->second = Eigen::MatrixXd::Zero(size[i], size[j]);
    return it->second;
  }
  Eigen::VectorXd Multiply(const Eigen::VectorXd& x) const {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(n);
    for (const auto& [ij, B] : blocks) {
      const auto [i, j] = ij;
      y.segment(offset[i], size[i]) += B * x.segment(offset[j], size[j]);
      if (i != j) y.segment(offset[j], size[j]) += B.transpose() * x.segment(offset[i], size[i]);
    }
    return y;
  }
};

// H of the largest island (by velocities) of `problem` at the solve's solution; the islands
// are the solver's own (islands.h).
NewtonMatrix LargestIslandMatrix(const solver::ContactProblem& problem,
                                 const solver::SapSolverResult& result) {
  std::vector<int> touched(problem.num_cliques(), -1);  // FindIslands' participation mark
  for (int k = 0; k < problem.num_constraints(); ++k)
    for (int b = 0; b < problem.entry(k).num_cliques; ++b) touched[problem.entry(k).clique[b]] = 0;
  solver::Islands islands;
  solver::FindIslands(problem, touched, &islands);
  const std::vector<int>& velocities = islands.num_velocities;
  const int island = static_cast<int>(std::max_element(velocities.begin(), velocities.end()) -
                                      velocities.begin());
  NewtonMatrix H;
  std::vector<int> node(problem.num_cliques(), -1);
  for (int q = islands.clique_start[island]; q < islands.clique_start[island + 1]; ++q) {
    const int c = islands.cliques[q];
    node[c] = static_cast<int>(H.size.size());
    H.size.push_back(problem.clique_size(c));
    H.offset.push_back(H.n);
    H.n += problem.clique_size(c);
    H.Block(node[c], node[c]) = problem.A(c);
  }
  std::vector<double> gamma, G;
  for (int q = islands.constraint_start[island]; q < islands.constraint_start[island + 1]; ++q) {
    const int k = islands.constraints[q];
    const solver::ConstraintEntry& e = problem.entry(k);
    const int m = e.num_rows;
    gamma.resize(m);
    G.resize(m * m);
    problem.constraint(k).Calc(result.v_c.data() + e.row_offset, gamma.data(), G.data(), nullptr);
    const Eigen::Map<const Eigen::MatrixXd> Gk(G.data(), m, m);
    for (int a = 0; a < e.num_cliques; ++a) {
      const Eigen::MatrixXd Ja = problem.DenseJacobian(k, a);
      for (int b = 0; b <= a; ++b) {
        const Eigen::MatrixXd Jb = problem.DenseJacobian(k, b);
        const int i = node[e.clique[a]], j = node[e.clique[b]];
        if (i >= j) H.Block(i, j) += Ja.transpose() * Gk * Jb;
        else H.Block(j, i) += Jb.transpose() * Gk * Ja;
      }
    }
    if (e.num_cliques == 2) H.edges.emplace_back(node[e.clique[0]], node[e.clique[1]]);
  }
  return H;
}

// Writes H into a BlockCholesky analyzed for its pattern.
void Load(const NewtonMatrix& H, solver::BlockCholesky* chol) {
  chol->SetZero();
  for (const auto& [ij, B] : H.blocks) {
    const solver::BlockCholesky::Slot slot = chol->Find(ij.first, ij.second);
    double* target = chol->data() + slot.offset;
    if (slot.transposed) {
      Eigen::Map<Eigen::MatrixXd>(target, B.cols(), B.rows()) = B.transpose();
    } else {
      Eigen::Map<Eigen::MatrixXd>(target, B.rows(), B.cols()) = B;
    }
  }
}

// H's lower triangle as a CHOLMOD matrix (stype -1).
cholmod_sparse* ToCholmod(const NewtonMatrix& H, cholmod_common* c) {
  size_t nnz = 0;
  for (const auto& [ij, B] : H.blocks) nnz += B.size();
  cholmod_triplet* T = cholmod_allocate_triplet(H.n, H.n, nnz, -1, CHOLMOD_REAL, c);
  auto* I = static_cast<int*>(T->i);
  auto* J = static_cast<int*>(T->j);
  auto* X = static_cast<double*>(T->x);
  for (const auto& [ij, B] : H.blocks)
    for (int col = 0; col < B.cols(); ++col)
      for (int row = 0; row < B.rows(); ++row) {
        const int r = H.offset[ij.first] + row, s = H.offset[ij.second] + col;
        if (r < s) continue;  // the diagonal blocks' upper triangle
        I[T->nnz] = r;
        J[T->nnz] = s;
        X[T->nnz] = B(row, col);
        ++T->nnz;
      }
  cholmod_sparse* A = cholmod_triplet_to_sparse(T, T->nnz, c);
  cholmod_free_triplet(&T, c);
  return A;
}

struct Timing {
  double analyze_us = 0, factor_us = 0, solve_us = 0, error = 0;
  // Nonzeros of L: CHOLMOD's count; for csim, the entries of its stored blocks (fill
  // included; a diagonal block is stored whole). And CHOLMOD's flop count.
  double lnz = 0, flops = 0;
};

Timing TimeCsim(const NewtonMatrix& H, const Eigen::VectorXd& b, const Eigen::VectorXd& x_true,
                int repeat) {
  Timing t;
  solver::BlockCholesky chol;
  Clock::time_point start = Clock::now();
  chol.Analyze(H.size, H.offset, H.edges);
  t.analyze_us = MicrosecondsSince(start);
  // Stored entries, when every node has the same size m (the clutter's trees: six each):
  // blocks x m^2. Otherwise not reported (NaN).
  const bool equal_sizes = std::all_of(H.size.begin(), H.size.end(),
                                       [&](int m) { return m == H.size.front(); });
  t.lnz = equal_sizes && !H.size.empty()
              ? static_cast<double>(chol.num_blocks()) * H.size.front() * H.size.front()
              : std::nan("");
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    Load(H, &chol);  // Factor works in place
    start = Clock::now();
    if (!chol.Factor()) {
      std::fprintf(stderr, "csim_factor_bench: csim's factorization failed\n");
      std::exit(1);
    }
    times.push_back(MicrosecondsSince(start));
  }
  t.factor_us = Median(times);
  Eigen::VectorXd x = b;
  start = Clock::now();
  chol.Solve(x.data());
  t.solve_us = MicrosecondsSince(start);
  t.error = (x - x_true).norm() / x_true.norm();
  return t;
}

Timing TimeCholmod(const NewtonMatrix& H, const Eigen::VectorXd& b, const Eigen::VectorXd& x_true,
                   int repeat, bool supernodal) {
  Timing t;
  cholmod_common c;
  cholmod_start(&c);
  c.nmethods = 1;  // AMD only: the ordering CHOLMOD would use without METIS, every time
  c.method[0].ordering = CHOLMOD_AMD;
  c.supernodal = supernodal ? CHOLMOD_SUPERNODAL : CHOLMOD_SIMPLICIAL;
  cholmod_sparse* A = ToCholmod(H, &c);
  Clock::time_point start = Clock::now();
  cholmod_factor* L = cholmod_analyze(A, &c);
  t.analyze_us = MicrosecondsSince(start);
  t.lnz = c.lnz;
  t.flops = c.fl;
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    start = Clock::now();
    cholmod_factorize(A, L, &c);
    times.push_back(MicrosecondsSince(start));
    if (c.status != CHOLMOD_OK) {
      std::fprintf(stderr, "csim_factor_bench: CHOLMOD's factorization failed (%d)\n", c.status);
      std::exit(1);
    }
  }
  t.factor_us = Median(times);
  cholmod_dense* B = cholmod_allocate_dense(H.n, 1, H.n, CHOLMOD_REAL, &c);
  std::copy(b.data(), b.data() + H.n, static_cast<double*>(B->x));
  cholmod_dense *X = nullptr, *Y = nullptr, *E = nullptr;
  cholmod_solve2(CHOLMOD_A, L, B, nullptr, &X, nullptr, &Y, &E, &c);  // sizes the workspace
  start = Clock::now();
  cholmod_solve2(CHOLMOD_A, L, B, nullptr, &X, nullptr, &Y, &E, &c);
  t.solve_us = MicrosecondsSince(start);
  const Eigen::Map<const Eigen::VectorXd> x(static_cast<double*>(X->x), H.n);
  t.error = (x - x_true).norm() / x_true.norm();
  for (cholmod_dense** d : {&B, &X, &Y, &E}) cholmod_free_dense(d, &c);
  cholmod_free_factor(&L, &c);
  cholmod_free_sparse(&A, &c);
  cholmod_finish(&c);
  return t;
}

std::string BlasLibrary() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&dgemm_), &info) == 0 || info.dli_fname == nullptr)
    return "unknown";
  char resolved[PATH_MAX];
  return realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname;
}

struct Options {
  ClutterSamplingOptions clutter;  // set in main: clutter-160 with walls, skip 0.2, every 20
  int repeat = 15;
  int min_velocities = 60;
};

}  // namespace
}  // namespace csim::bench

int main(int argc, char** argv) {
  using namespace csim::bench;  // NOLINT
  Options o;
  CLI::App app{"csim's block Cholesky against CHOLMOD on the clutter's Newton matrices"};
  o.clutter.objects = 160;
  o.clutter.skip = 0.2;
  o.clutter.every = 20;
  AddClutterSamplingOptions(&app, &o.clutter, 10, "sample");
  app.add_option("--repeat", o.repeat, "factorizations per matrix and method (median kept)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-velocities", o.min_velocities,
                 "skip islands smaller than this (velocities)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  const ClutterConfig config = o.clutter.Config();
  std::string command;
  std::unique_ptr<csim::io::LoadedScene> scene;
  try {
    scene = std::make_unique<csim::io::LoadedScene>(
        LoadClutterScene(config, o.clutter.duration, {}, &command));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csim_factor_bench: %s\n", e.what());
    return 1;
  }
  std::printf("== %s: %s; largest island every %d steps from t = %g s, islands of >= %d "
              "velocities; %d factorizations per matrix and method (median)\n",
              ConfigName(config).c_str(), command.c_str(), o.clutter.every, o.clutter.skip, o.min_velocities,
              o.repeat);
  std::printf("BLAS under CHOLMOD: %s; CHOLMOD %d.%d.%d, AMD ordering\n", BlasLibrary().c_str(),
              CHOLMOD_MAIN_VERSION, CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION);

  CsimRunner runner(*scene);
  const ClutterSamplingOptions& c = o.clutter;
  const long steps = std::lround(c.duration / c.dt);
  const long first = std::lround(c.skip / c.dt);
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  std::printf("| t [s] | velocities | nodes | CHOLMOD nnz(L) | csim stored L | CHOLMOD Mflop | csim factor us | "
              "supernodal us | simplicial us | csim solve us | supernodal solve us | "
              "csim analyze us | supernodal analyze us | max rel. error |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  double sum_csim = 0, sum_super = 0, sum_simplicial = 0, max_error = 0;
  int samples = 0;
  for (long step = 1; step <= steps; ++step) {
    StepSample sample;
    if (!runner.Step(&sample)) {
      std::fprintf(stderr, "csim_factor_bench: %s\n", runner.error().c_str());
      return 1;
    }
    if (step < first || step % c.every != 0) continue;
    const csim::integrator::ContactStepWorkspace& cws = runner.workspace();
    if (cws.problem.num_constraints() == 0) continue;
    const NewtonMatrix H = LargestIslandMatrix(cws.problem, cws.result);
    if (H.n < o.min_velocities) continue;
    Eigen::VectorXd x_true(H.n);
    for (int i = 0; i < H.n; ++i) x_true[i] = normal(rng);
    const Eigen::VectorXd b = H.Multiply(x_true);
    const Timing csim = TimeCsim(H, b, x_true, o.repeat);
    const Timing super = TimeCholmod(H, b, x_true, o.repeat, true);
    const Timing simplicial = TimeCholmod(H, b, x_true, o.repeat, false);
    const double error = std::max({csim.error, super.error, simplicial.error});
    std::printf("| %.3f | %d | %zu | %.0f | %.0f | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f "
                "| %.1f | %.1e |\n",
                step * c.dt, H.n, H.size.size(), super.lnz, csim.lnz, super.flops * 1e-6, csim.factor_us,
                super.factor_us, simplicial.factor_us, csim.solve_us, super.solve_us,
                csim.analyze_us, super.analyze_us, error);
    sum_csim += csim.factor_us;
    sum_super += super.factor_us;
    sum_simplicial += simplicial.factor_us;
    max_error = std::max(max_error, error);
    ++samples;
  }
  if (samples == 0) {
    std::printf("no island of %d or more velocities was sampled\n", o.min_velocities);
    return 0;
  }
  std::printf("summary %s: %d matrices, factorization time summed: csim %.0f us, CHOLMOD "
              "supernodal %.0f us (%.2fx csim's), simplicial %.0f us (%.2fx); largest "
              "relative error of a solve %.1e\n",
              ConfigName(config).c_str(), samples, sum_csim, sum_super, sum_super / sum_csim,
              sum_simplicial, sum_simplicial / sum_csim, max_error);
  // H is SPD with condition numbers near 1e4 here: any method that works solves to ~1e-12.
  if (max_error > 1e-8) {
    std::fprintf(stderr, "csim_factor_bench: a solve's relative error is %.1e > 1e-8\n", max_error);
    return 1;
  }
  return 0;
}
