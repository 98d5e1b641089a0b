#include "bench/paired_solve.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace csim::bench {
namespace {

bool SameBits(const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
  if (x.size() != y.size()) return false;
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (x[i] != y[i] && !(x[i] != x[i] && y[i] != y[i])) return false;  // NaN equals NaN
  return true;
}

// Each island's cliques times its Newton iterations, summed (the report's tree-iterations).
double TreeIterations(const solver::SapSolver& s) {
  double work = 0.0;
  for (int i = 0; i < s.num_islands(); ++i)
    work += static_cast<double>(s.island_num_cliques(i)) * s.island_iterations(i);
  for (const solver::SapSolver::MergedIsland& m : s.merged_islands())
    work += static_cast<double>(m.cliques) * m.iterations;
  return work;
}

}  // namespace

void CheckComparedSettings(const std::vector<std::string>& compared) {
  const std::string prefix = "settings.solver.";
  for (const std::string& entry : compared) {
    const std::string key = entry.substr(0, entry.find('='));
    if (key.compare(0, prefix.size(), prefix) != 0 || key.size() == prefix.size())
      throw std::invalid_argument("--compare " + entry + ": only settings.solver.* keys can be " +
                                  "compared on the same problems (other settings change the " +
                                  "problem itself; run the configurations separately)");
    if (key == prefix + "warm_start")
      throw std::invalid_argument("--compare " + entry + ": the warm start is the step's, not " +
                                  "the solve's; both settings start from the run's");
  }
}

PairedSolve::PairedSolve(const solver::SapSolverParameters& a,
                         const solver::SapSolverParameters& b, int threads)
    : solver_a_(a), solver_b_(b) {
  solver_a_.set_num_threads(threads);
  solver_b_.set_num_threads(threads);
}

void PairedSolve::SolveSide(solver::SapSolver& s, const solver::ContactProblem& problem,
                            const Eigen::VectorXd& v_guess, int problem_number,
                            solver::SapSolverResult* r, PairedSide* side) {
  const auto start = std::chrono::steady_clock::now();
  const StepStatus status = s.Solve(problem, v_guess, r);
  side->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  side->rounds += r->stats.iterations;
  side->work += TreeIterations(s);
  if (!status.ok()) {
    if (side->failures++ == 0)
      side->first_failure = status.reason + " (problem " + std::to_string(problem_number) + ")";
    return;
  }
  side->max_momentum_error = std::max(side->max_momentum_error, r->stats.momentum_error);
}

void PairedSolve::Compare(const solver::ContactProblem& problem, const Eigen::VectorXd& v_guess,
                          const solver::SapSolverResult& step_result, bool b_first) {
  if (problem.num_constraints() == 0) return;
  PairedSummary& s = summary_;
  const int failures_a = s.a.failures, failures_b = s.b.failures;
  const int number = s.problems + 1;
  if (b_first) SolveSide(solver_b_, problem, v_guess, number, &result_b_, &s.b);
  SolveSide(solver_a_, problem, v_guess, number, &result_a_, &s.a);
  if (!b_first) SolveSide(solver_b_, problem, v_guess, number, &result_b_, &s.b);
  ++s.problems;
  s.a_reproduces_steps = s.a_reproduces_steps && SameBits(result_a_.v, step_result.v) &&
                         result_a_.status.outcome == step_result.status.outcome &&
                         result_a_.stats.iterations == step_result.stats.iterations;
  if (s.a.failures == failures_a && s.b.failures == failures_b)
    s.max_velocity_difference = std::max(s.max_velocity_difference,
                                         (result_b_.v - result_a_.v).lpNorm<Eigen::Infinity>());
}

}  // namespace csim::bench
