#pragma once
// What the state-derivative tests of the pairwise rule share (integrator/
// pairwise_contact_derivatives_test.cc, fixed_axis_partials_test.cc): the rows a step
// residual has, and random state directions of the rule's scale. Header-only.

#include <algorithm>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "engine/solver/contact_problem.h"

namespace csim::testing {

/// Per velocity of `problem`: whether a constraint acts on its clique, i.e. whether the
/// optimality residual has that row (solver::CalcOptimalityResidual writes 0 elsewhere).
inline std::vector<char> ConstrainedVelocities(const solver::ContactProblem& problem) {
  std::vector<char> constrained(problem.num_velocities(), 0);
  for (int k = 0; k < problem.num_constraints(); ++k)
    for (int b = 0; b < problem.entry(k).num_cliques; ++b) {
      const int c = problem.entry(k).clique[b];
      std::fill_n(constrained.begin() + problem.clique_offset(c), problem.clique_size(c), 1);
    }
  return constrained;
}

/// A random state direction of n velocities: dq uniform in [-0.05, 0.05] (m, rad), dv0 in
/// [-0.5, 0.5] (m/s, rad/s).
inline void RandomStateDirection(std::mt19937& random, int n, Eigen::VectorXd* dq,
                                 Eigen::VectorXd* dv0) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  dq->resize(n);
  dv0->resize(n);
  for (int i = 0; i < n; ++i) {
    (*dq)[i] = 0.05 * uniform(random);
    (*dv0)[i] = 0.5 * uniform(random);
  }
}

}  // namespace csim::testing
