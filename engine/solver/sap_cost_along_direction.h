#pragma once
// The SAP cost along a Newton direction on one island, for the line search
// (docs/design/sap-solver.md §4.2; SAP §IV-C): ell(alpha) = ell_p(v + alpha dv), with O(n)
// derivatives from the precomputed A dv and J dv:
//   ell(alpha)   = ell_A(0) + alpha dv^T A (v - v*) + 1/2 alpha^2 dv^T A dv + sum ell_k
//   ell'(alpha)  = dv^T A (v - v*) + alpha dv^T A dv - (J dv)^T gamma(alpha)
//   ell''(alpha) = dv^T A dv + sum_k (J_k dv)^T G_k(alpha) (J_k dv)
//
// Constraints that stay on one quadratic piece of their cost over the search's bracket
// [0, alpha_1] (alpha_1: the first evaluation, alpha_max for the exact search, which never
// leaves that bracket) are evaluated once: from the second evaluation on, their part of
// ell, ell' and ell'' is the exact quadratic through their values at alpha_1, summed once.
// Why: in a collapsing pile most contacts of a large island stay stuck (or apart) along the
// direction while a few slide or change region, and the exact search takes several
// evaluations there. A piece is a convex set (Constraint::Calc), so the same piece at both
// ends of the bracket means the same piece in between. Only the evaluation order of the
// sums changes (round-off).

#include <vector>

#include "engine/solver/line_search.h"
#include "engine/solver/sap_solver_parameters.h"

namespace csim::solver {

struct SapWorkspace;

/// Per constraint of the problem: its ell_k, ell_k' and ell_k'' at the first evaluation and
/// its quadratic piece there; per island's range of constraint positions, the constraints
/// still evaluated after the first evaluation. Islands use disjoint entries.
struct CostAlongDirectionMemo {
  std::vector<double> cost, slope, curvature;
  std::vector<int> piece, active;
  /// Sizes the memo for num_constraints constraints.
  void Resize(int num_constraints);
};

/// ell_p and its derivatives along dv at alpha = 0 on one island.
struct CostAtDirectionStart {
  double ell = 0.0;    ///< ell_p(v) [J]
  double ell_A = 0.0;  ///< its 1/2 ||v - v*||_A^2 part [J]
  double d1 = 0.0;     ///< d ell / d alpha = grad^T dv < 0 [J]
  double c1 = 0.0;     ///< dv^T A (v - v*) [J]
  double a2 = 0.0;     ///< dv^T A dv [J]
};

/// Runs the line search `parameters` choose (exact or backtracking) on ell(alpha) along
/// ws.dv on island `island`, reading ws.vc and ws.dvc (J v and J dv) and writing the
/// island's entries of ws.vc_trial, ws.gamma_trial and ws.along; G_trial holds one G block
/// (the calling thread's scratch).
LineSearchResult LineSearchAlongDirection(const SapSolverParameters& parameters,
                                          const CostAtDirectionStart& start, int island,
                                          SapWorkspace& ws, double* G_trial);

}  // namespace csim::solver
