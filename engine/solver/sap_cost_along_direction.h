#pragma once
// The SAP cost along a Newton direction on one island, for the line search (math.md §4.4;
// SAP §IV-C): ell(alpha) = ell_p(v + alpha dv), with O(n) derivatives from the precomputed
// A dv and J dv:
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

/// ell(alpha) along ws.dv on one island, reading ws.vc and ws.dvc (J v and J dv) and writing
/// the island's entries of ws.vc_trial, ws.gamma_trial and ws.along.
class CostAlongDirection final : public LineSearchFunction {
 public:
  /// Along dv on island `island`, whose ell_A(0) is ell_A; c1 = dv^T A (v - v*),
  /// a2 = dv^T A dv; G_trial holds one G block (the calling thread's scratch).
  CostAlongDirection(SapWorkspace& ws, int island, double ell_A, double c1, double a2,
                     double* G_trial)
      : ws_(ws), island_(island), ell_A_(ell_A), c1_(c1), a2_(a2), G_trial_(G_trial) {}

  void Eval(double alpha, double* ell, double* d1, double* d2) override;

 private:
  // The constraint-row workspaces: J v, J dv, and the trial J (v + alpha dv) and gamma.
  struct Rows {
    const double* vc;
    const double* dvc;
    double* vc_trial;
    double* gamma_trial;
  };

  // Adds constraint k's ell_k, (J_k dv)^T gamma_k and, with curvature, (J_k dv)^T G_k (J_k dv)
  // at alpha; with kRecord also keeps them, and its piece, for SplitConstraints.
  template <bool kRecord>
  void EvalConstraint(const Rows& rows, int k, double alpha, bool curvature, double* cost,
                      double* dvc_gamma, double* dvc_G_dvc);

  // After the first evaluation (at alpha_1, vc_trial still holds its constraint velocities):
  // the constraints on the same quadratic piece at alpha = 0 and alpha_1 go into the frozen
  // sums, the others into the island's range of the memo's `active`. The piece at alpha = 0
  // is the one the island's evaluation found at the same v (ws.piece).
  void SplitConstraints();

  SapWorkspace& ws_;
  int island_;
  double ell_A_;     // 1/2 ||v - v*||_A^2 on the island
  double c1_;        // dv^T A (v - v*)
  double a2_;        // dv^T A dv
  double* G_trial_;  // the calling thread's scratch
  int evaluations_ = 0;
  double alpha_1_ = 0.0;                // the first evaluation's alpha
  bool alpha_1_has_curvature_ = false;  // it recorded pieces and curvatures
  bool split_ = false;                  // SplitConstraints ran
  int num_active_ = 0;                  // constraints still evaluated
  // Sums over the frozen constraints at alpha_1: ell_k, ell_k' and ell_k''.
  double frozen_cost_ = 0.0, frozen_slope_ = 0.0, frozen_curvature_ = 0.0;
};

}  // namespace csim::solver
